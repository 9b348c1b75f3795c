import Foundation
import TestScratch
import Testing

@testable import MicroappPlatform

@Suite("A path's name and folder, cut by its bytes")
struct PathPartsTests {
    @Test(
        "they are what NSString's lastPathComponent and deletingLastPathComponent say",
        .offThePool,
        arguments: [
            "/x/y/libAuth.so", "/libAuth.so", "libAuth.so", "x/libAuth.so", "/x//y/libAuth.so", "/x/y/", "/", "",
            "//libAuth.so", "./libAuth.so", "/x/ü/libÄ.so", "/x/y/.", "..",
        ])
    func matchFoundation(path: String) {
        #expect(PathParts.name(of: path) == (path as NSString).lastPathComponent)
        #expect(PathParts.folder(of: path) == (path as NSString).deletingLastPathComponent)
    }
}
