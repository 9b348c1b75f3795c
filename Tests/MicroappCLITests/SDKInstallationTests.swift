import Testing

@testable import MicroappTool

@Suite("The SDK's installed folder")
struct SDKInstallationTests {
    @Test(
        "the folder is named by the SDK's own major.minor when the header has one, else by the entry ABI's",
        arguments: [
            (
                "#define MICROAPP_SDK_VERSION_MAJOR 2u\n#define MICROAPP_SDK_VERSION_MINOR (3u)\n"
                    + "#define MICROAPP_ABI_MAJOR 1u\n#define MICROAPP_ABI_MINOR 0u\n", "2.3"
            ),
            ("#define MICROAPP_ABI_MAJOR 1u\n#define MICROAPP_ABI_MINOR 0u\n", "1.0"),
            ("#define MICROAPP_ABI_MAJOR   1\n#define MICROAPP_ABI_MINOR 12\n", "1.12"),
        ])
    func version(header: String, expected: String) {
        #expect(SDKInstallation.version(inHeader: header) == expected)
    }

    @Test("a header without a version names no folder")
    func noVersion() {
        #expect(SDKInstallation.version(inHeader: "#define MICROAPP_ABI_MAJOR 1u\n") == nil)
        #expect(
            SDKInstallation.version(inHeader: "#define MICROAPP_ABI_MAJOR x\n#define MICROAPP_ABI_MINOR y\n") == nil)
    }
}
