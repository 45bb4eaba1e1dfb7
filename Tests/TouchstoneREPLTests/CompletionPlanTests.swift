import Testing
@testable import TouchstoneCommands
@testable import TouchstoneREPL

/// What TAB does to the line, decided without a terminal.
@Suite struct CompletionPlanTests {
    typealias Plan = LineEditor.CompletionPlan

    @Test func oneCandidateReplacesTheWordAndAddsASpace() {
        let plan = Plan(lineBeforeCursor: "he", candidates: ["help"])
        #expect(plan.word == "he")
        #expect(plan.replacement == "help ")
        #expect(plan.listing.isEmpty)
    }

    @Test func severalCandidatesAreListedWithoutChangingAWordTheyOnlyShare() {
        let plan = Plan(lineBeforeCursor: "e", candidates: ["enroll", "evaluate", "exit"])
        #expect(plan.replacement == nil)
        #expect(plan.listing == ["enroll", "evaluate", "exit"])
    }

    @Test func severalCandidatesExtendTheWordToTheirCommonPrefix() {
        let plan = Plan(lineBeforeCursor: "policy ev", candidates: ["evaluate", "evaluation"])
        #expect(plan.word == "ev")
        #expect(plan.replacement == "evaluat")
        #expect(plan.listing == ["evaluate", "evaluation"])
    }

    @Test func noCandidateLeavesTheLineAlone() {
        let plan = Plan(lineBeforeCursor: "zz", candidates: [])
        #expect(plan.replacement == nil)
        #expect(plan.listing.isEmpty)
    }

    @Test func duplicateCandidatesCountOnce() {
        let plan = Plan(lineBeforeCursor: "h", candidates: ["help", "help"])
        #expect(plan.replacement == "help ")
        #expect(plan.listing.isEmpty)
    }

    @Test func theWordStartsAfterTheLastSpaceAndMayBeNonASCII() {
        #expect(Plan.currentWord(in: "enroll énr") == "énr")
        #expect(Plan.currentWord(in: "enroll ") == "")
        #expect(Plan.commonPrefix(of: ["énroll ✓", "énrolment"]) == "énrol")
    }

    @Test func candidatesAreListedInColumnsFilledTopToBottom() {
        #expect(LineEditor.formatColumns(["a", "bb", "ccc", "d", "e"], width: 12) == "a    d\nbb   e\nccc\n")
        #expect(LineEditor.formatColumns(["only"], width: 2) == "only\n")
    }
}
