import CMicroappABI
import Foundation
import MicroappCore
import MicroappLoading
import MicroappPlatform
import MicroappSDK
import TestPlugins
import Testing

/// The descriptor grows by appending fields within ABI major 1: a plugin built before a field was appended keeps
/// loading, a plugin built after it loads in an older host, and a host reads an appended field only when the
/// plugin's `struct_size` covers it.
@Suite("The descriptor grows by appended fields without refusing plugins built before or after")
@MainActor
struct DescriptorEvolutionTests {
    /// Where the appended field of `microapp_next.h` sits: right after the frozen 1.0 layout.
    static let appendedOffset = DescriptorFields.minimumSize

    /// A plugin whose descriptor is `size` bytes (`struct_size` says so too), built with the next-minor test
    /// header; the appended field points at "appended" when written, and the bytes after a short descriptor are
    /// 0x01 everywhere (a pointer that crashes if the loader read it).
    static func plugin(_ name: String, id: String, abiMinor: Int, writesAppendedField: Bool) async throws
        -> String
    {
        let manifest = DescriptorFixture.literal(Manifests.json(id))
        let nextMinorHeader = Paths.repository.appendingPathComponent(
            "Tests/MicroappLoadingTests/NextMinor/microapp_next.h"
        ).path
        let size = writesAppendedField ? "sizeof(microapp_descriptor_next)" : "MICROAPP_DESCRIPTOR_MIN_SIZE"
        let source = """
            #include <string.h>
            #include "\(nextMinorHeader)"

            const char *const needs_symbol = MICROAPP_SDK_VERSION_SYMBOL;
            static int32_t register_feature(const microapp_descriptor *self, void *registrar) {
                (void)self; (void)registrar; return MICROAPP_STATUS_OK;
            }
            static microapp_descriptor_next descriptor;

            const microapp_descriptor *microapp_entry(void) {
                memset(&descriptor, 0x01, sizeof descriptor);
                descriptor.v1_0.abi_version = (1u << 16) | \(abiMinor)u;
                descriptor.v1_0.struct_size = (uint32_t)\(size);
                descriptor.v1_0.sdk_version = microapp_sdk_version();
                descriptor.v1_0.manifest_json = \(manifest);
                descriptor.v1_0.register_feature = register_feature;
                if (\(writesAppendedField ? 1 : 0)) descriptor.appended_text = "appended";
                return &descriptor.v1_0;
            }
            """
        return try await fixture { try FixtureBuilder.library(name, source: source) }
    }

    @Test("the minimum descriptor size is the frozen ABI 1.0 layout: two uint32 and three pointers")
    func minimumIsFrozen() {
        #expect(DescriptorFields.minimumSize == 8 + 3 * MemoryLayout<UnsafeRawPointer>.size)
        #expect(
            DescriptorFields.minimumSize == Int(MemoryLayout<microapp_descriptor>.offset(of: \.register_feature)!) + 8)
    }

    @Test("a plugin of a newer minor with a longer descriptor loads, and its appended field reads back")
    func newerMinorAppendedFieldReads() async throws {
        let path = try await Self.plugin("NextMinorLonger", id: "next-minor", abiMinor: 1, writesAppendedField: true)
        let image = try PluginLoader.load(path).get()
        #expect(image.manifest.id == "next-minor")
        #expect(image.fields?.size == DescriptorFields.minimumSize + MemoryLayout<UnsafeRawPointer>.size)
        #expect(image.fields?.text(at: Self.appendedOffset, limit: 64) == .text("appended"))
    }

    /// What a host of the next minor does with a plugin built before the field was appended: the descriptor
    /// ends at the 1.0 size, the bytes after it are poison, and the field reads as absent rather than as them.
    @Test("a v1.0-size descriptor loads after a field is appended, and the appended field reads as not there")
    func oldSizeLoadsAfterAppend() async throws {
        let path = try await Self.plugin("NextMinorShort", id: "old-size", abiMinor: 0, writesAppendedField: false)
        let image = try PluginLoader.load(path).get()
        #expect(image.manifest.id == "old-size")
        #expect(image.fields?.size == DescriptorFields.minimumSize)
        #expect(image.fields?.text(at: Self.appendedOffset, limit: 64) == .notInDescriptor)
    }

    @Test("every real plugin needs exactly the version symbol of the SDK it was built against")
    func realPluginsNeedTheirVersionSymbol() throws {
        #expect(!Paths.realPlugins.isEmpty)
        for path in Paths.realPlugins {
            #expect(try SDKVersionSymbol.required(by: path).get() == [SDKVersion.current], "\(path)")
        }
    }

    @Test("the loaded SDK library defines the version symbol of every minor of its major up to its own")
    func sdkDefinesEveryMinor() {
        let current = SDKVersion.current
        for minor in 0...current.minor {
            let name = SDKVersion(major: current.major, minor: minor).symbolName
            let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name)
            #expect(
                symbol.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } == "\(current.major).\(minor)")
        }
        let next = SDKVersion(major: current.major, minor: current.minor + 1).symbolName
        #expect(dlsym(UnsafeMutableRawPointer(bitPattern: 0), next) == nil)
    }
}
