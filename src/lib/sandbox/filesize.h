/* filesize.h - whether a sandboxed program reached --file-size: a file that large where it can write, looked for by init (either backend) */
#ifndef SANDEVAL_SANDBOX_FILESIZE_H
#define SANDEVAL_SANDBOX_FILESIZE_H

#include <stdbool.h>
#include <stdint.h>

/* Whether a regular file under /work or /tmp (the only places a sandboxed
 * program can write) has LIMIT bytes or more, looking at 4,096 entries at
 * most, 8 levels down, never following a link. RLIMIT_FSIZE stops every
 * write at LIMIT; a program that ignores SIGXFSZ (python3 does) gets EFBIG
 * and goes on, so its wait status does not say that it reached it. Called
 * by init once the program ended, in the sandbox's mount namespace. */
bool file_size_reached(uint64_t limit);

#endif
