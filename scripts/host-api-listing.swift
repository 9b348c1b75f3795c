// Prints the host API, one public declaration a line, sorted: every public declaration of MicroappTool, and the public
// members of the engine's types MicroappTool names for hosts (its `public typealias`es), read from the symbol graphs
// swift-symbolgraph-extract wrote in the folder given (scripts/check-host-api runs it; the SDK's own declarations are
// checked by scripts/check-sdk-abi instead).
import Foundation

struct SymbolGraph: Decodable {
    struct Symbol: Decodable {
        struct Kind: Decodable { var identifier: String }
        struct Fragment: Decodable { var spelling: String }
        var kind: Kind
        var pathComponents: [String]
        var declarationFragments: [Fragment]?
        var accessLevel: String
    }
    var symbols: [Symbol]
}

let folder = CommandLine.arguments[1]
let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".symbols.json") }
    .sorted()
func symbols(of file: String) throws -> [SymbolGraph.Symbol] {
    let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + file))
    return try JSONDecoder().decode(SymbolGraph.self, from: data).symbols.filter {
        $0.accessLevel == "public" || $0.accessLevel == "open"
    }
}
func line(_ symbol: SymbolGraph.Symbol) -> String {
    let kind = symbol.kind.identifier.replacingOccurrences(of: "swift.", with: "")
    let declaration = (symbol.declarationFragments ?? []).map(\.spelling).joined()
        .split(whereSeparator: \.isNewline).joined(separator: " ")
    return "\(kind) \(symbol.pathComponents.joined(separator: ".")): \(declaration)"
}

// MicroappTool's own graph and its extensions of other modules' types.
let isTool = { (file: String) in file.hasPrefix("MicroappTool.") || file.hasPrefix("MicroappTool@") }
let tool = try files.filter(isTool).flatMap(symbols(of:))
let aliases = tool.filter { $0.kind.identifier == "swift.typealias" && $0.pathComponents.count == 1 }
let aliased = Set(aliases.map { $0.pathComponents[0] })
// The engine's graphs: only the members of the types hosts see through an alias. The catalogue of problem codes
// (`Problem.Code.usage`, …) is left out: ProblemCatalogueTests checks it against docs/troubleshooting.md, and a new
// code is not a change of the host API.
let members = try files.filter { !isTool($0) }.flatMap(symbols(of:)).filter {
    $0.pathComponents.count > 1 && aliased.contains($0.pathComponents[0])
}
let engine = members.filter {
    !($0.kind.identifier == "swift.type.property" && $0.pathComponents.prefix(2) == ["Problem", "Code"])
}
for text in Set((tool + engine).map(line)).sorted() { print(text) }
