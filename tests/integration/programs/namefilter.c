/* Local function symbols with gcc-clone-like names, in a chosen .strtab order, to exercise gprof
   2.40's static-name filter (and its scan past the terminating NUL into the next string).
   Each symbol is a tiny function; `main` calls some of them so they get arcs. */
#define FN(name) ".type \"" name "\", @function\n\"" name "\":\n  ret\n"
__asm__(".text\n"
        FN("p1.constprop.0.isra.0") FN("zz1")
        FN("p2.constprop.1.2") FN("zz2")
        FN("p3.constprop.x.5") FN("zz3")
        FN("p4.clone.a.7") FN("zz4")
        FN("f.1") FN("g.clone.1") FN("h.constprop.2") FN("i.part.0")
        FN("m.1.2") FN("n.clone.3.4") FN("zz5")
        FN("o.") FN("zz6")
        FN("q.5") FN("r.constprop.0") FN("s.cold")
        FN("t.7") FN("u$x") FN("zz7")
        FN("v.8") FN("w.clone.9") FN("zz8")
        FN("kern.constprop.0") FN("later.c"));

static volatile long sink;
static void work(int n) { for (int i = 0; i < n; i++) sink += i; }

int main(void) {
  for (int i = 0; i < 20000; i++) work(1000);
  return 0;
}
