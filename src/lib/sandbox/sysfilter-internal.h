/* sysfilter-internal.h - the compiled filter, shared by the builder and the installer */
#ifndef SANDEVAL_SYSFILTER_INTERNAL_H
#define SANDEVAL_SYSFILTER_INTERNAL_H

#include <linux/filter.h>

#include "sandbox/sysfilter.h"

struct sysfilter {
	struct sock_fprog prog;
	int allowed;
	int owned;	/* prog.filter was malloc'd */
};

#endif
