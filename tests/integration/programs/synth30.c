/* A fixed binary for the property tests: 30 routines of assorted sizes (some static, one
   alias pair), never run; synthetic gmon files supply the histogram and the arcs. */
volatile long sink;

long f00(long n) {
  for (long i = 0; i < n * 39; i++) sink += i ^ 626;
  for (long i = 0; i < n * 5; i++) sink += i ^ 637;
  for (long i = 0; i < n * 85; i++) sink += i ^ 847;
  for (long i = 0; i < n * 28; i++) sink += i ^ 264;
  for (long i = 0; i < n * 8; i++) sink += i ^ 407;
  return sink;
}

long f01(long n) {
  for (long i = 0; i < n * 84; i++) sink += i ^ 138;
  for (long i = 0; i < n * 12; i++) sink += i ^ 473;
  for (long i = 0; i < n * 2; i++) sink += i ^ 535;
  for (long i = 0; i < n * 33; i++) sink += i ^ 27;
  return sink;
}

long f02(long n) {
  for (long i = 0; i < n * 22; i++) sink += i ^ 931;
  return sink;
}

static __attribute__((used)) long f03(long n) {
  for (long i = 0; i < n * 69; i++) sink += i ^ 940;
  for (long i = 0; i < n * 53; i++) sink += i ^ 996;
  for (long i = 0; i < n * 85; i++) sink += i ^ 357;
  for (long i = 0; i < n * 70; i++) sink += i ^ 904;
  for (long i = 0; i < n * 10; i++) sink += i ^ 412;
  return sink;
}

long f04(long n) {
  for (long i = 0; i < n * 33; i++) sink += i ^ 825;
  return sink;
}

long f05(long n) {
  for (long i = 0; i < n * 88; i++) sink += i ^ 287;
  for (long i = 0; i < n * 56; i++) sink += i ^ 580;
  for (long i = 0; i < n * 14; i++) sink += i ^ 691;
  for (long i = 0; i < n * 37; i++) sink += i ^ 655;
  for (long i = 0; i < n * 73; i++) sink += i ^ 917;
  return sink;
}

long f06(long n) {
  for (long i = 0; i < n * 80; i++) sink += i ^ 507;
  return sink;
}

long f07(long n) {
  for (long i = 0; i < n * 18; i++) sink += i ^ 850;
  for (long i = 0; i < n * 41; i++) sink += i ^ 899;
  for (long i = 0; i < n * 41; i++) sink += i ^ 259;
  return sink;
}

long f08(long n) {
  for (long i = 0; i < n * 12; i++) sink += i ^ 142;
  for (long i = 0; i < n * 33; i++) sink += i ^ 717;
  for (long i = 0; i < n * 42; i++) sink += i ^ 122;
  for (long i = 0; i < n * 5; i++) sink += i ^ 420;
  for (long i = 0; i < n * 66; i++) sink += i ^ 309;
  return sink;
}

long f09(long n) {
  for (long i = 0; i < n * 69; i++) sink += i ^ 659;
  for (long i = 0; i < n * 25; i++) sink += i ^ 484;
  return sink;
}

static __attribute__((used)) long f10(long n) {
  for (long i = 0; i < n * 44; i++) sink += i ^ 526;
  for (long i = 0; i < n * 59; i++) sink += i ^ 884;
  for (long i = 0; i < n * 86; i++) sink += i ^ 972;
  for (long i = 0; i < n * 44; i++) sink += i ^ 533;
  for (long i = 0; i < n * 45; i++) sink += i ^ 70;
  for (long i = 0; i < n * 4; i++) sink += i ^ 960;
  return sink;
}

long f11(long n) {
  for (long i = 0; i < n * 15; i++) sink += i ^ 486;
  for (long i = 0; i < n * 64; i++) sink += i ^ 268;
  for (long i = 0; i < n * 63; i++) sink += i ^ 260;
  for (long i = 0; i < n * 76; i++) sink += i ^ 262;
  for (long i = 0; i < n * 90; i++) sink += i ^ 899;
  for (long i = 0; i < n * 88; i++) sink += i ^ 175;
  return sink;
}

long f12(long n) {
  for (long i = 0; i < n * 25; i++) sink += i ^ 848;
  for (long i = 0; i < n * 25; i++) sink += i ^ 525;
  for (long i = 0; i < n * 38; i++) sink += i ^ 431;
  for (long i = 0; i < n * 87; i++) sink += i ^ 231;
  for (long i = 0; i < n * 29; i++) sink += i ^ 489;
  for (long i = 0; i < n * 49; i++) sink += i ^ 958;
  return sink;
}

long f13(long n) {
  for (long i = 0; i < n * 81; i++) sink += i ^ 307;
  for (long i = 0; i < n * 67; i++) sink += i ^ 982;
  for (long i = 0; i < n * 50; i++) sink += i ^ 678;
  for (long i = 0; i < n * 82; i++) sink += i ^ 942;
  return sink;
}

long f14(long n) {
  for (long i = 0; i < n * 40; i++) sink += i ^ 817;
  for (long i = 0; i < n * 84; i++) sink += i ^ 852;
  for (long i = 0; i < n * 90; i++) sink += i ^ 483;
  for (long i = 0; i < n * 49; i++) sink += i ^ 318;
  return sink;
}

long f15(long n) {
  for (long i = 0; i < n * 19; i++) sink += i ^ 739;
  for (long i = 0; i < n * 22; i++) sink += i ^ 980;
  for (long i = 0; i < n * 39; i++) sink += i ^ 542;
  for (long i = 0; i < n * 43; i++) sink += i ^ 21;
  for (long i = 0; i < n * 90; i++) sink += i ^ 194;
  return sink;
}

long f16(long n) {
  for (long i = 0; i < n * 44; i++) sink += i ^ 576;
  return sink;
}

static __attribute__((used)) long f17(long n) {
  for (long i = 0; i < n * 76; i++) sink += i ^ 567;
  return sink;
}

long f18(long n) {
  for (long i = 0; i < n * 52; i++) sink += i ^ 743;
  for (long i = 0; i < n * 83; i++) sink += i ^ 545;
  for (long i = 0; i < n * 6; i++) sink += i ^ 721;
  return sink;
}

long f19(long n) {
  for (long i = 0; i < n * 86; i++) sink += i ^ 7;
  for (long i = 0; i < n * 20; i++) sink += i ^ 843;
  for (long i = 0; i < n * 78; i++) sink += i ^ 509;
  for (long i = 0; i < n * 80; i++) sink += i ^ 871;
  return sink;
}

long f20(long n) {
  for (long i = 0; i < n * 35; i++) sink += i ^ 449;
  for (long i = 0; i < n * 68; i++) sink += i ^ 142;
  for (long i = 0; i < n * 19; i++) sink += i ^ 889;
  return sink;
}

long f21(long n) {
  for (long i = 0; i < n * 69; i++) sink += i ^ 76;
  for (long i = 0; i < n * 44; i++) sink += i ^ 857;
  for (long i = 0; i < n * 5; i++) sink += i ^ 199;
  for (long i = 0; i < n * 54; i++) sink += i ^ 592;
  return sink;
}

long f22(long n) {
  for (long i = 0; i < n * 2; i++) sink += i ^ 147;
  for (long i = 0; i < n * 56; i++) sink += i ^ 987;
  for (long i = 0; i < n * 10; i++) sink += i ^ 390;
  for (long i = 0; i < n * 33; i++) sink += i ^ 778;
  return sink;
}

long f23(long n) {
  for (long i = 0; i < n * 40; i++) sink += i ^ 788;
  for (long i = 0; i < n * 80; i++) sink += i ^ 15;
  for (long i = 0; i < n * 42; i++) sink += i ^ 351;
  return sink;
}

static __attribute__((used)) long f24(long n) {
  for (long i = 0; i < n * 63; i++) sink += i ^ 781;
  return sink;
}

long f25(long n) {
  for (long i = 0; i < n * 85; i++) sink += i ^ 104;
  for (long i = 0; i < n * 47; i++) sink += i ^ 501;
  for (long i = 0; i < n * 63; i++) sink += i ^ 588;
  for (long i = 0; i < n * 24; i++) sink += i ^ 122;
  return sink;
}

long f26(long n) {
  for (long i = 0; i < n * 44; i++) sink += i ^ 496;
  for (long i = 0; i < n * 51; i++) sink += i ^ 109;
  return sink;
}

long f27(long n) {
  for (long i = 0; i < n * 27; i++) sink += i ^ 489;
  for (long i = 0; i < n * 14; i++) sink += i ^ 110;
  return sink;
}

long f28(long n) {
  for (long i = 0; i < n * 16; i++) sink += i ^ 177;
  for (long i = 0; i < n * 22; i++) sink += i ^ 719;
  for (long i = 0; i < n * 68; i++) sink += i ^ 353;
  for (long i = 0; i < n * 4; i++) sink += i ^ 913;
  return sink;
}

long f29(long n) {
  for (long i = 0; i < n * 88; i++) sink += i ^ 580;
  for (long i = 0; i < n * 23; i++) sink += i ^ 778;
  for (long i = 0; i < n * 49; i++) sink += i ^ 530;
  for (long i = 0; i < n * 70; i++) sink += i ^ 312;
  for (long i = 0; i < n * 26; i++) sink += i ^ 613;
  for (long i = 0; i < n * 46; i++) sink += i ^ 154;
  return sink;
}

long f30_alias(long n) __attribute__((alias("f29")));

int main(int argc, char **argv) {
  (void)argv;
  return (int)f00(argc) & 1;
}
