/* sandbox-gvisor-init.c - the gvisor backend's in-sandbox init (src/gvinit/gvinit.c, built static), embedded in sandeval */
#include "sandbox/sandbox-gvisor.h"

#ifndef GVINIT_BIN
#error "GVINIT_BIN must name the static init binary (see the Makefile)"
#endif

__asm__(".section .rodata\n"
	".balign 16\n"
	".global gvinit_start\n"
	".hidden gvinit_start\n"
	"gvinit_start:\n"
	".incbin \"" GVINIT_BIN "\"\n"
	".global gvinit_end\n"
	".hidden gvinit_end\n"
	"gvinit_end:\n"
	".previous\n");
