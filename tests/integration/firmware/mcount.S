/* __gnu_mcount_nc, as GCC's -pg calls it on ARM (`push {lr}; bl __gnu_mcount_nc` at each
   routine's entry): the caller's return address was pushed, lr is the return address into the
   routine. Both are handed to gmon_arc (Thumb bit cleared), then the pushed lr is restored. */
	.syntax unified
	.thumb
	.text
	.globl __gnu_mcount_nc
	.type __gnu_mcount_nc, %function
__gnu_mcount_nc:
	push {r0, r1, r2, r3, lr}
	bic r1, lr, #1
	ldr r0, [sp, #20]
	bic r0, r0, #1
	bl gmon_arc
	pop {r0, r1, r2, r3, ip, lr}
	bx ip
	.size __gnu_mcount_nc, . - __gnu_mcount_nc

/* SysTick: the interrupted pc is the 7th word of the exception frame on the main stack. */
	.globl SysTick_Handler
	.type SysTick_Handler, %function
SysTick_Handler:
	mrs r0, msp
	ldr r0, [r0, #24]
	b gmon_sample
	.size SysTick_Handler, . - SysTick_Handler
