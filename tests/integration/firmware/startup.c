/* Reset: copy .data, clear .bss, start the profiler, run main, write gmon.out, exit (semihosting). */
#include <stdint.h>
extern char __data_load[], __data_start[], __data_end[], __bss_start[], __bss_end[], __stack_top[];
extern char __iram_load[], __iram_start[], __iram_end[];
int main(void);
void gmon_start(void), gmon_write(void), semihost_exit(int), SysTick_Handler(void);

void Reset_Handler(void) {
  for (char *s = __data_load, *d = __data_start; d < __data_end;) *d++ = *s++;
  for (char *s = __iram_load, *d = __iram_start; d < __iram_end;) *d++ = *s++;
  for (char *d = __bss_start; d < __bss_end;) *d++ = 0;
  gmon_start();
  int status = main();
  gmon_write();
  semihost_exit(status);
}

static void Fault_Handler(void) { semihost_exit(99); }

__attribute__((section(".vectors"), used)) void (*const vectors[16])(void) = {
    (void (*)(void))__stack_top, Reset_Handler, Fault_Handler, Fault_Handler, Fault_Handler,
    Fault_Handler, Fault_Handler, 0, 0, 0, 0, Fault_Handler, Fault_Handler, 0, Fault_Handler,
    SysTick_Handler,
};
