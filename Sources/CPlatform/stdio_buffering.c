#include <stdio.h>

#include "stdio_buffering.h"

void microapp_line_buffer_stdio(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    setvbuf(stderr, NULL, _IONBF, 0);
}
