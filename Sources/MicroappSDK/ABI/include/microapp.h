/*
 * microapp.h — the C entry ABI of a Microapps feature plugin.
 *
 * A plugin is a shared library. Before loading it, the host reads the library's dynamic symbol table from the
 * file (no plugin code runs): the plugin must need exactly one SDK version symbol, `microapp_sdk_<major>_<minor>`
 * (see MICROAPP_SDK_VERSION_SYMBOL); the host refuses another major or a newer minor than its SDK's, naming both.
 * Then it opens the library with dlopen, which resolves every symbol the plugin needs (an SDK or Swift runtime
 * symbol the host's copies lack fails here, before the plugin's initializers run) and then runs the plugin's
 * initializers. It looks up one symbol, `microapp_entry`, calls it once in each process that loads the image
 * (a probe child, when no earlier verdict on the file is cached, then the host), on the thread that loads the
 * library, and reads the descriptor it returns.
 *
 * Two versions, two jobs:
 * - `abi_version` is the version of the descriptor's C layout. Fields are only ever appended within a major:
 *   the host reads `abi_version` and `struct_size` first, refuses another major, refuses a `struct_size` below
 *   MICROAPP_DESCRIPTOR_MIN_SIZE (the v1.0 layout, frozen), and reads each later field only when `struct_size`
 *   covers it.
 * - The SDK version (MICROAPP_SDK_MAJOR.MICROAPP_SDK_MINOR) is the version of the Swift API plugins are
 *   compiled against. The SDK is built with library evolution, so additive changes (new types and members,
 *   stored properties with defaults, enum cases clients handle with `@unknown default`) bump the minor and keep
 *   plugins built against an older minor working; anything else bumps the major (`scripts/check-sdk-abi`
 *   fails a breaking change made without one).
 */
#ifndef MICROAPP_H
#define MICROAPP_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Major version of the descriptor layout; the host refuses any other major. */
#define MICROAPP_ABI_MAJOR 1u
/** Minor version of the descriptor layout: fields appended within a major. */
#define MICROAPP_ABI_MINOR 0u
/** The version a plugin built with this header writes into `abi_version`. */
#define MICROAPP_ABI_VERSION ((MICROAPP_ABI_MAJOR << 16) | MICROAPP_ABI_MINOR)

/** Major version of the SDK (Swift API): a plugin built against another major is refused. */
#define MICROAPP_SDK_MAJOR 1
/** Minor version of the SDK: a plugin built against a minor up to the host's loads. */
#define MICROAPP_SDK_MINOR 2

#define MICROAPP_SDK_PASTE_(major, minor) microapp_sdk_##major##_##minor
#define MICROAPP_SDK_PASTE(major, minor) MICROAPP_SDK_PASTE_(major, minor)
/**
 * The SDK version symbol of this header: `microapp_sdk_1_0` for SDK 1.0. The SDK library defines one such
 * symbol for every minor of its major up to its own (`microapp_sdk_1_0` … `microapp_sdk_1_<minor>`), each a
 * NUL-terminated "major.minor" string; a plugin needs the one of the SDK it was compiled against (through
 * microapp_sdk_version(), which `MicroappEntry.export` calls). The symbol is in the file, so the host checks
 * it before dlopen, and the dynamic linker refuses a plugin whose symbol the loaded SDK does not define.
 */
#define MICROAPP_SDK_VERSION_SYMBOL MICROAPP_SDK_PASTE(MICROAPP_SDK_MAJOR, MICROAPP_SDK_MINOR)

/** Defined by the SDK library (see MICROAPP_SDK_VERSION_SYMBOL). Owned by the SDK, read-only, never freed. */
extern const char MICROAPP_SDK_VERSION_SYMBOL[];

/**
 * The SDK version this header belongs to, as "major.minor". Inline, so the reference to the version symbol
 * lands in the plugin that calls it, not in the SDK library. Any thread.
 */
static inline const char *microapp_sdk_version(void) { return MICROAPP_SDK_VERSION_SYMBOL; }

/** Longest `sdk_version` string the host reads, terminator excluded; a longer one is refused unread. */
#define MICROAPP_SDK_VERSION_MAX_LENGTH 31u

/** `register_feature` results. Anything but MICROAPP_STATUS_OK means nothing was registered. */
enum {
    MICROAPP_STATUS_OK = 0,
    /** The registrar pointer was null or not one the host handed out. */
    MICROAPP_STATUS_BAD_REGISTRAR = 1,
    /** The descriptor passed back was not one this SDK made. */
    MICROAPP_STATUS_UNKNOWN_DESCRIPTOR = 2,
    /** The feature refused to register. No reason travels with it: the host reports the status. */
    MICROAPP_STATUS_REFUSED = 3,
};

/**
 * The descriptor a plugin returns from `microapp_entry` (ABI 1.0 layout).
 * Ownership: the plugin owns it and everything it points to, for the life of the process (the host never
 * unloads a plugin). The host only reads it. All strings are UTF-8 and NUL-terminated.
 */
typedef struct microapp_descriptor {
    /** MICROAPP_ABI_VERSION of the header the plugin was built with. Read first. */
    uint32_t abi_version;
    /** sizeof(microapp_descriptor) as the plugin saw it. Read second; the host reads no field past it. */
    uint32_t struct_size;
    /**
     * The SDK version the plugin was built against, "major.minor" (microapp_sdk_version()). The host has
     * already checked the version symbol in the file; it reads at most MICROAPP_SDK_VERSION_MAX_LENGTH bytes
     * here and refuses a descriptor whose version differs from that symbol's.
     */
    const char *sdk_version;
    /**
     * The manifest as JSON (id, version, displayName, routes, requirements, provides, hasMocks, tab), at most
     * 256 KiB. Plugin code made it (its initializers ran at dlopen, then `microapp_entry`); the host reads and
     * checks it before calling `register_feature`, so before any feature code (`provide`, `makeRoot`) runs.
     * NULL only for a host that asked for no manifest (Swift: `MicroappEntry.withRecordedManifests`), holding it
     * already as data from its sandboxed probe; such a host does not read this field.
     */
    const char *manifest_json;
    /**
     * Hands the feature to the host. `self` is this descriptor; `registrar` is an opaque pointer the host
     * made for this call. Called on the host's main thread, at most once per load. Returns a status; it
     * never traps on a bad pointer.
     */
    int32_t (*register_feature)(const struct microapp_descriptor *self, void *registrar);
    /* ABI 1.1 and later append fields here; a field is read only when `struct_size` covers it. */
} microapp_descriptor;

/**
 * Size of the smallest descriptor the host accepts: the ABI 1.0 layout (two uint32_t, three pointers), frozen.
 * It does not grow when fields are appended, so plugins built before an appended field keep loading.
 */
#define MICROAPP_DESCRIPTOR_MIN_SIZE ((uint32_t)(2 * sizeof(uint32_t) + 3 * sizeof(void *)))

/** The one symbol a plugin exports. Returns the plugin's descriptor, or null when it cannot describe itself. */
typedef const microapp_descriptor *(*microapp_entry_fn)(void);

/** Name of the entry symbol, for dlsym. */
#define MICROAPP_ENTRY_SYMBOL "microapp_entry"

#ifdef __cplusplus
}
#endif

#endif /* MICROAPP_H */
