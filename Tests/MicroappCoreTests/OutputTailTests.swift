import MicroappCore
import Testing

@Suite("The last lines of a child's stderr")
struct OutputTailTests {
    @Test("only the last lines are kept, oldest first, with an unfinished last line")
    func keepsTheLastLines() {
        var tail = OutputTail(count: 3)
        tail.append(Array("one\ntwo\nthree\nfour\nfi".utf8))
        tail.append(Array("ve".utf8))
        #expect(tail.lines == ["three", "four", "five"])
    }

    @Test("colours, cursor moves, titles and other control characters are removed whole")
    func escapeSequencesAreRemoved() {
        var tail = OutputTail()
        tail.append(Array("\u{1B}[31mred\u{1B}[0m \u{1B}[2J\u{1B}[Hcleared\u{1B}]0;owned\u{07} tab\there\u{8}\n".utf8))
        #expect(tail.lines == ["red cleared tab here"])
        #expect("a\u{1B}]8;;http://x\u{1B}\\link\u{1B}]8;;\u{1B}\\b".withoutEscapeSequences == "alinkb")
    }

    @Test("a flood without newlines stays bounded: a line is cut at its limit")
    func floodsStayBounded() {
        var tail = OutputTail(count: 2, lineLimit: 10)
        for _ in 0..<1000 { tail.append(Array(repeating: UInt8(ascii: "x"), count: 1000)) }
        #expect(tail.lines == [String(repeating: "x", count: 10)])
        tail.append(Array("\n\n\nlast\n".utf8))
        #expect(tail.lines == [String(repeating: "x", count: 10), "last"])
    }
}
