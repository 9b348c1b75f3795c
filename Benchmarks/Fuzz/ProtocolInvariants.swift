import Foundation
import MicroappCore
import MicroappSDK

/// What must hold for every frame body a hostile child could send the host (`FeatureWire.decode`): it never crashes
/// or hangs; a refusal says why; what it accepts is a child's or host's message within the bounds, and encodes back
/// to a frame that decodes to the same message.
enum ProtocolInvariants {
    static let slowLimit: Duration = .seconds(1)

    static func check(_ text: String) -> [Violation] { check(body: Array(text.utf8)) }

    static func check(body bytes: [UInt8]) -> [Violation] {
        var violations: [Violation] = []
        let start = ContinuousClock.now
        let message: FeatureMessage
        do throws(FeatureWireError) {
            message = try FeatureWire.decode(body: bytes)
        } catch {
            if error.reason.isEmpty {
                violations.append(Violation(kind: "protocol: refused without a reason", detail: shown(bytes)))
            }
            if ContinuousClock.now - start > slowLimit {
                violations.append(Violation(kind: "protocol: slow refusal", detail: "\(bytes.count) bytes"))
            }
            return violations
        }
        if ContinuousClock.now - start > slowLimit {
            violations.append(Violation(kind: "protocol: slow decode", detail: "\(bytes.count) bytes"))
        }
        var reader = FeatureFrameReader()
        reader.append(FeatureWire.encode(message))
        if (try? reader.next()) != message {
            violations.append(Violation(kind: "protocol: accepted message does not round-trip", detail: shown(bytes)))
        }
        return violations
    }

    private static func shown(_ bytes: [UInt8]) -> String {
        escaped(String(decoding: bytes.prefix(300), as: UTF8.self))
    }
}

extension Generators {
    /// Valid frame bodies of each message kind, as `FeatureWire.encode` writes them.
    static let protocolSeeds: [String] = {
        let location = Location(url: "a://x/1", pattern: "a://x/{id}", parameters: ["id": "1"])
        let messages: [FeatureMessage] = [
            .welcome(version: 1, manifest: "{}"),
            .screenUpdate(location, Screen(title: "T", content: [.text(Text("x"))])),
            .done, .navigate(.push("a://x/2")), .stateWrite(key: "session", value: Data("null".utf8)),
            .snapshot(Data([1])), .log("line"), .serviceCall(id: 1, key: "k", request: Data("{}".utf8)),
            .serviceReply(id: 1, response: nil, error: ServiceError(code: "c", message: "m")), .refused("r"),
        ]
        return messages.map { String(decoding: FeatureWire.encode($0).dropFirst(4), as: UTF8.self) }
    }()

    /// Any frame body for the protocol decoder: random bytes, tokens, or mutated valid messages.
    mutating func protocolInput() -> String { jsonInput(seeds: Self.protocolSeeds) }
}
