#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TouchstoneCommands
internal import CLibEdit

extension LineEditor {
    /// What TAB does to the line, decided from the completer's candidates.
    ///
    /// Pure: the libedit side only applies it.
    struct CompletionPlan: Equatable {
        /// The word before the cursor: the text after the last whitespace.
        var word: String
        /// The text that replaces ``word``; nil leaves the line unchanged.
        var replacement: String?
        /// Candidates to list under the line; empty when there is nothing to list.
        var listing: [String]

        /// Plans the completion of `lineBeforeCursor` with `candidates`.
        ///
        /// One candidate replaces the word, followed by a space (none after a
        /// candidate ending in `:` or `=`, which expects a value). Several extend
        /// the word to their longest common prefix (when that is longer) and
        /// are listed. Duplicates are ignored; order is kept.
        init(lineBeforeCursor: String, candidates: [String]) {
            word = String(Self.currentWord(in: lineBeforeCursor))
            var seen = Set<String>()
            let unique = candidates.filter { seen.insert($0).inserted }
            switch unique.count {
            case 0:
                replacement = nil
                listing = []
            case 1:
                // A word that wants a value typed right after it (`passcode:`, `rounds=`)
                // is not closed with a space.
                let open = unique[0].hasSuffix(":") || unique[0].hasSuffix("=")
                replacement = unique[0] + (open ? "" : " ")
                listing = []
            default:
                let prefix = Self.commonPrefix(of: unique)
                replacement = prefix.count > word.count ? prefix : nil
                listing = unique
            }
        }

        /// The text after the last whitespace of `line`.
        static func currentWord(in line: String) -> Substring {
            guard let space = line.lastIndex(where: { $0.isWhitespace }) else { return line[...] }
            return line[line.index(after: space)...]
        }

        /// The longest prefix, in characters, shared by all `words`.
        static func commonPrefix(of words: [String]) -> String {
            guard var prefix = words.first.map({ Substring($0) }) else { return "" }
            for word in words.dropFirst() {
                let shared = zip(prefix, word).prefix { $0 == $1 }.count
                prefix = prefix.prefix(shared)
            }
            return String(prefix)
        }
    }

    /// Lays `items` out in columns, filled top to bottom, that fit in `width`.
    static func formatColumns(_ items: [String], width: Int) -> String {
        guard !items.isEmpty else { return "" }
        let gap = 2
        let cellWidth = (items.map(\.count).max() ?? 0) + gap
        let columns = max(1, (max(width, 1) + gap) / cellWidth)
        let rows = (items.count + columns - 1) / columns
        var output = ""
        for row in 0..<rows {
            var line = ""
            for column in 0..<columns {
                let index = column * rows + row
                guard index < items.count else { break }
                let item = items[index]
                line += item
                if (column + 1) * rows + row < items.count {
                    line += String(repeating: " ", count: cellWidth - item.count)
                }
            }
            output += line + "\n"
        }
        return output
    }

    /// The TAB command: asks ``completer`` and applies the ``CompletionPlan``.
    func complete(_ el: OpaquePointer) -> UInt8 {
        guard let completer,
              let line = el_line(el)?.pointee,
              let buffer = line.buffer,
              let cursor = line.cursor,
              cursor >= buffer
        else {
            return UInt8(CC_ERROR)
        }
        let lineBeforeCursor = String(
            decoding: UnsafeRawBufferPointer(start: UnsafeRawPointer(buffer), count: cursor - buffer),
            as: UTF8.self
        )
        let plan = CompletionPlan(lineBeforeCursor: lineBeforeCursor, candidates: completer(lineBeforeCursor))

        if let replacement = plan.replacement {
            // libedit counts wide characters, one per Unicode scalar.
            let scalars = plan.word.unicodeScalars.count
            if scalars > 0 {
                el_deletestr(el, Int32(clamping: scalars))
            }
            if el_insertstr(el, replacement) != 0 {
                return UInt8(CC_REFRESH_BEEP)
            }
        }
        if !plan.listing.isEmpty {
            let columns = ts_terminal_columns(STDOUT_FILENO)
            writeToTerminal("\n" + Self.formatColumns(plan.listing, width: columns > 0 ? Int(columns) : 80))
            // Redraw the prompt and the line below the listing.
            return UInt8(CC_REDISPLAY)
        }
        return UInt8(plan.replacement == nil ? CC_REFRESH_BEEP : CC_REFRESH)
    }
}
