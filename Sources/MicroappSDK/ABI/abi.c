// The SDK version symbols plugins need (see MICROAPP_SDK_VERSION_SYMBOL in microapp.h): one for every minor of
// this major up to the SDK's own, so a plugin built against any of them finds its symbol in this library.
// A minor bump appends a line here; scripts/check-sdk-abi checks the list against the header's version.
#include "microapp.h"

#if MICROAPP_SDK_MAJOR != 1 || MICROAPP_SDK_MINOR != 2
#error "microapp.h changed the SDK version: define its version symbol below (one per minor of the major)"
#endif

__attribute__((visibility("default"))) const char microapp_sdk_1_0[] = "1.0";
__attribute__((visibility("default"))) const char microapp_sdk_1_1[] = "1.1";
__attribute__((visibility("default"))) const char microapp_sdk_1_2[] = "1.2";
