// SwiftPM needs one source file in a C target; the ABI itself is the header.
#include "microapp.h"
