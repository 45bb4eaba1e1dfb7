#!/usr/bin/env python3
"""Apple's headers as the contract: the API coverage table (issue 34, item 2).

    scripts/api-coverage.py [--headers DIR [--sdk LABEL]] [--check]

--headers DIR  read the iOS SDK headers in DIR (SecItem.h, SecKey.h, SecAccessControl.h,
               SecBase.h, SecRandom.h, every LocalAuthentication header, its .apinotes, and a
               CryptoKit*.swiftinterface holding CryptoKit's SecureEnclave declarations) and
               rewrite docs/api-coverage/declarations.tsv: every declaration available on iOS and
               not deprecated there, as facts (name, kind, header, iOS version, value, Swift
               spelling). No header text is kept. Without --headers the committed
               declarations.tsv is used, so nobody needs the SDK.
(always)       merge declarations.tsv with the hand-kept docs/api-coverage/status.tsv
               (implemented | differs | missing, with how or why) into docs/API-COVERAGE.md and
               Tests/LocalAuthenticationTests/APICoverageTests.swift, which names every
               declaration the table calls implemented or differs, so removing one fails to
               compile.
--check        write nothing; exit 1 when a generated file is stale or a declaration has no
               status (what CI runs).

DIR is flat: the .h files of an iPhoneOS.sdk's Security.framework/Headers (the five above) and
LocalAuthentication.framework/Headers (with LocalAuthentication.apinotes), and one
.swiftinterface holding the SecureEnclave part of CryptoKit's interface (the SDK's
CryptoKit.swiftmodule/arm64-apple-ios.swiftinterface, cut to its SecureEnclave declarations, or
written from Apple's documentation for members newer than the interface at hand). Keep it out of
the repository: only the facts in declarations.tsv are committed.

Python 3, standard library only.
"""
import argparse
import os
import re
import sys
from collections import OrderedDict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DECLARATIONS = os.path.join(ROOT, "docs", "api-coverage", "declarations.tsv")
STATUS = os.path.join(ROOT, "docs", "api-coverage", "status.tsv")
TABLE = os.path.join(ROOT, "docs", "API-COVERAGE.md")
TEST = os.path.join(ROOT, "Tests", "LocalAuthenticationTests", "APICoverageTests.swift")

SECURITY_HEADERS = ["SecItem.h", "SecKey.h", "SecAccessControl.h", "SecBase.h", "SecRandom.h"]
HEADER_ORDER = SECURITY_HEADERS + [
    "LAContext.h", "LAError.h", "LAPublicDefines.h", "LABiometryType.h", "LACompanionType.h",
    "LADomainState.h", "LAEnvironment.h", "LAEnvironmentState.h", "LAEnvironmentMechanism.h",
    "LAEnvironmentMechanismBiometry.h", "LAEnvironmentMechanismUserPassword.h",
    "LAEnvironmentMechanismCompanion.h", "LARight.h", "LARequirement.h", "LARightStore.h",
    "LAPersistedRight.h", "LAPrivateKey.h", "LAPublicKey.h", "LASecret.h",
    "CryptoKit SecureEnclave",
]
COLUMNS = ["name", "kind", "header", "ios", "value", "swift"]
STATUSES = ("implemented", "differs", "missing")

# ---------------------------------------------------------------------------------------------
# Reading the headers
# ---------------------------------------------------------------------------------------------

# What the preprocessor sees when it compiles for iOS (SecBase.h's table of SEC_OS_* flags).
IOS_MACROS = {
    "TARGET_OS_IPHONE": 1, "TARGET_OS_IOS": 1, "TARGET_OS_OSX": 0, "TARGET_OS_MACCATALYST": 0,
    "TARGET_OS_TV": 0, "TARGET_OS_WATCH": 0, "SEC_OS_IPHONE": 1, "SEC_OS_OSX": 0,
    "SEC_OS_OSX_INCLUDES": 0, "SEC_IOS_ON_OSX": 0, "__BLOCKS__": 1, "__clang__": 1,
    "__cplusplus": 0, "__OBJC__": 1,
}

# Bare markers that end no statement; removed before statements are split.
BARE_MARKERS = [
    "__BEGIN_DECLS", "__END_DECLS", "CF_ASSUME_NONNULL_BEGIN", "CF_ASSUME_NONNULL_END",
    "NS_ASSUME_NONNULL_BEGIN", "NS_ASSUME_NONNULL_END", "CF_IMPLICIT_BRIDGING_ENABLED",
    "CF_IMPLICIT_BRIDGING_DISABLED", "NS_HEADER_AUDIT_BEGIN", "NS_HEADER_AUDIT_END",
    "@optional", "@required",
]

# Attribute macros: name -> takes arguments.
ATTRIBUTE_MACROS = {
    "API_AVAILABLE": True, "API_UNAVAILABLE": True, "API_DEPRECATED": True,
    "API_DEPRECATED_WITH_REPLACEMENT": True, "NS_ENUM_DEPRECATED": True,
    "NS_ENUM_AVAILABLE": True, "__OSX_AVAILABLE_STARTING": True,
    "__OSX_AVAILABLE_BUT_DEPRECATED": True, "__OSX_AVAILABLE": True, "__IOS_AVAILABLE": True,
    "__IOS_DEPRECATED": True, "__OSX_DEPRECATED": True, "__TVOS_AVAILABLE": True,
    "__TVOS_DEPRECATED": True, "__WATCHOS_AVAILABLE": True, "__WATCHOS_DEPRECATED": True,
    "NS_SWIFT_NAME": True, "NS_SWIFT_ASYNC_NAME": True, "NS_SWIFT_ASYNC_THROWS_ON_FALSE": True,
    "NS_SWIFT_UNAVAILABLE": True, "__attribute__": True, "CF_BRIDGED_TYPE": True,
    "NS_REFINED_FOR_SWIFT": False, "NS_UNAVAILABLE": False, "NS_SWIFT_SENDABLE": False,
    "NS_SWIFT_NOTHROW": False, "CSSM_DEPRECATED": False, "DEPRECATED_ATTRIBUTE": False,
    "SEC_DEPRECATED_ATTRIBUTE": False, "__IOS_PROHIBITED": False, "__IOS_UNAVAILABLE": False,
    "__OSX_UNAVAILABLE": False, "__TVOS_UNAVAILABLE": False, "__WATCHOS_UNAVAILABLE": False,
    "__TVOS_PROHIBITED": False, "__WATCHOS_PROHIBITED": False, "CF_STRING_ENUM": False,
    "CF_EXTENSIBLE_STRING_ENUM": False, "NS_STRING_ENUM": False, "CF_RETURNS_RETAINED": False,
    "CF_RETURNS_NOT_RETAINED": False, "SEC_SWIFT_SENDABLE": False, "NS_DESIGNATED_INITIALIZER": False,
    "DEPRECATED_IN_MAC_OS_X_VERSION_10_7_AND_LATER": False, "LA_EXPORT": False, "LA_EXTERN": False,
    "NS_SWIFT_UI_ACTOR": False, "NS_SWIFT_NONISOLATED": False,
}
NULLABILITY = {"__nullable", "__nonnull", "_Nullable", "_Nonnull", "_Null_unspecified",
               "nullable", "nonnull", "__autoreleasing", "const", "extern", "typedef", "struct",
               "enum", "static", "inline"}


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def eval_condition(expr):
    expr = re.sub(r"defined\s*\(\s*(\w+)\s*\)", lambda m: str(IOS_MACROS.get(m.group(1), 0)), expr)
    expr = re.sub(r"__has_attribute\s*\([^)]*\)", "1", expr)
    expr = re.sub(r"__has_feature\s*\([^)]*\)", "1", expr)
    expr = re.sub(r"\b[A-Za-z_]\w*\b", lambda m: str(IOS_MACROS.get(m.group(0), 0)), expr)
    expr = expr.replace("&&", " and ").replace("||", " or ")
    expr = re.sub(r"!(?!=)", " not ", expr)
    return bool(eval(expr, {"__builtins__": {}}))


def preprocess(text):
    """Keeps the lines an iOS build sees; returns (code, defines)."""
    out, defines, stack = [], [], []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        while line.rstrip().endswith("\\") and i + 1 < len(lines):
            i += 1
            line = line.rstrip()[:-1] + " " + lines[i]
        i += 1
        s = line.strip()
        active = all(stack)
        m = re.match(r"#\s*(\w+)\s*(.*)", s)
        if not m:
            if active:
                out.append(line)
            continue
        directive, rest = m.group(1), m.group(2).strip()
        if directive == "if":
            stack.append(eval_condition(rest))
        elif directive == "ifdef":
            stack.append(bool(IOS_MACROS.get(rest, 0)))
        elif directive == "ifndef":
            stack.append(not IOS_MACROS.get(rest, 0))
        elif directive == "elif":
            stack[-1] = (not stack[-1]) and eval_condition(rest)
        elif directive == "else":
            stack[-1] = not stack[-1]
        elif directive == "endif":
            stack.pop()
        elif directive == "define" and active:
            dm = re.match(r"(\w+)\s+(.+)", rest)
            if dm:
                defines.append((dm.group(1), dm.group(2).strip()))
    return "\n".join(out), defines


def balanced(text, start):
    """Index just past the parenthesised group opening at text[start] == '('."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i + 1
    raise ValueError("unbalanced parentheses: " + text[start:start + 80])


def take_attributes(text):
    """Splits out the attribute macros: (text without them, [(macro, args)])."""
    found, out, i = [], [], 0
    pattern = re.compile(r"\b(" + "|".join(re.escape(k) for k in sorted(ATTRIBUTE_MACROS, key=len, reverse=True)) + r")\b")
    while True:
        m = pattern.search(text, i)
        if not m:
            out.append(text[i:])
            break
        out.append(text[i:m.start()])
        name, j = m.group(1), m.end()
        args = ""
        k = j
        while k < len(text) and text[k] in " \t\n":
            k += 1
        if ATTRIBUTE_MACROS[name] and k < len(text) and text[k] == "(":
            end = balanced(text, k)
            args = text[k + 1:end - 1]
            j = end
        found.append((name, args))
        out.append(" ")
        i = j
    return "".join(out), found


def split_top(text, sep=","):
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return [p for p in parts if p.strip()]


def platform_args(args):
    """'macos(10.12), ios(10.0)' -> {'macos': ['10.12'], 'ios': ['10.0']}; bare names -> []."""
    result = {}
    for part in split_top(args):
        part = part.strip()
        m = re.match(r"(\w+)\s*\((.*)\)$", part, re.S)
        if m:
            result[m.group(1)] = [v.strip() for v in m.group(2).split(",")]
        elif re.match(r"^\w+$", part):
            result[part] = []
    return result


class Availability:
    def __init__(self):
        self.introduced = None     # iOS version string
        self.unavailable = False
        self.deprecated = False
        self.explicit = False      # says something about iOS
        self.swift_name = None
        self.refined = False
        self.ns_unavailable = False

    @staticmethod
    def parse(attributes):
        a = Availability()
        for name, args in attributes:
            if name == "API_AVAILABLE":
                ios = platform_args(args).get("ios")
                if ios is not None:
                    a.explicit = True
                    if ios and ios[0] == "NA":
                        a.unavailable = True
                    elif ios:
                        a.introduced = ios[0]
            elif name == "API_UNAVAILABLE":
                if "ios" in platform_args(args):
                    a.unavailable = a.explicit = True
            elif name in ("API_DEPRECATED", "API_DEPRECATED_WITH_REPLACEMENT"):
                ios = platform_args(args.split(",", 1)[1] if "," in args else "").get("ios")
                if ios is not None:
                    a.explicit = True
                    if ios and ios[0] == "NA":
                        a.unavailable = True
                    else:
                        a.deprecated = True
                        a.introduced = ios[0] if ios else a.introduced
            elif name == "NS_ENUM_DEPRECATED":
                parts = [p.strip() for p in args.split(",")]
                if len(parts) >= 4 and parts[2] != "NA":
                    a.explicit = True
                    a.introduced = parts[2].replace("_", ".")
                    a.deprecated = parts[3] != "NA"
            elif name == "NS_ENUM_AVAILABLE":
                parts = [p.strip() for p in args.split(",")]
                if len(parts) >= 2:
                    a.explicit = True
                    a.unavailable = parts[1] == "NA"
                    a.introduced = None if a.unavailable else parts[1].replace("_", ".")
            elif name == "__OSX_AVAILABLE_STARTING":
                parts = [p.strip() for p in args.split(",")]
                a.explicit = True
                if len(parts) > 1 and parts[1] == "__IPHONE_NA":
                    a.unavailable = True
                elif len(parts) > 1:
                    a.introduced = parts[1].replace("__IPHONE_", "").replace("_", ".")
            elif name == "__OSX_AVAILABLE_BUT_DEPRECATED":
                parts = [p.strip() for p in args.split(",")]
                a.explicit = True
                if len(parts) > 3 and parts[2] == "__IPHONE_NA":
                    a.unavailable = True
                elif len(parts) > 3:
                    a.introduced = parts[2].replace("__IPHONE_", "").replace("_", ".")
                    a.deprecated = parts[3] != "__IPHONE_NA"
            elif name == "__IOS_AVAILABLE":
                a.explicit = True
                a.introduced = args.strip()
            elif name == "__IOS_DEPRECATED":
                a.explicit = a.deprecated = True
            elif name in ("__IOS_PROHIBITED", "__IOS_UNAVAILABLE", "CSSM_DEPRECATED"):
                a.explicit = a.unavailable = True
            elif name in ("DEPRECATED_ATTRIBUTE", "SEC_DEPRECATED_ATTRIBUTE"):
                a.deprecated = True
            elif name == "__attribute__" and re.search(r"\b(deprecated|__deprecated__)\b", args):
                a.deprecated = True
            elif name == "__attribute__" and re.search(r"\bunavailable\b", args):
                a.unavailable = True
            elif name == "NS_SWIFT_NAME":
                a.swift_name = args.strip()
            elif name == "NS_REFINED_FOR_SWIFT":
                a.refined = True
            elif name in ("NS_UNAVAILABLE", "NS_SWIFT_UNAVAILABLE"):
                a.ns_unavailable = True
        return a

    def inherit(self, parent):
        if parent is None:
            return self
        if parent.unavailable:
            self.unavailable = True
        if parent.deprecated:
            self.deprecated = True
        if self.introduced is None:
            self.introduced = parent.introduced
        return self

    @property
    def counts(self):
        return not (self.unavailable or self.deprecated or self.ns_unavailable)


def words(identifier):
    """CamelCase words, acronyms kept together ('kSecAccessControlUserPresence' ->
    ['k', 'Sec', 'Access', 'Control', 'User', 'Presence'])."""
    return re.findall(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+[a-z]*", identifier)


def lower_first_word(name):
    """Swift's lowercasing of an imported name: 'RSASignatureRaw' -> 'rsaSignatureRaw'."""
    m = re.match(r"([A-Z]+)(?=[A-Z][a-z])", name)
    if m and len(m.group(1)) > 1:
        return m.group(1).lower() + name[m.end():]
    m = re.match(r"[A-Z]+(?![a-z])", name)
    if m and len(m.group(0)) > 1:
        return m.group(0).lower() + name[m.end():]
    return name[:1].lower() + name[1:]


def case_prefix(type_name, case_names):
    """The prefix Swift strips from the cases of an imported enum: the words the type name
    shares with every (available, not deprecated) case, a leading 'k' ignored."""
    tw = words(type_name)
    best = None
    for case in case_names:
        cw = words(case)
        offset = 1 if cw and cw[0] == "k" else 0
        n = 0
        while n < len(tw) and n + offset < len(cw) - 1 and tw[n] == cw[n + offset]:
            n += 1
        best = n if best is None else min(best, n)
    return best or 0


def strip_case(case, n):
    cw = words(case)
    offset = 1 if cw and cw[0] == "k" else 0
    prefix = "".join(cw[:n + offset])
    assert case.startswith(prefix), (case, prefix)
    return lower_first_word(case[len(prefix):])


def eval_value(expression, symbols):
    expr = expression.strip()
    if expr.startswith('"'):
        return expr
    expr = re.sub(r"\b(\d+)[uUlL]+\b", r"\1", expr)
    expr = re.sub(r"\b([A-Za-z_]\w*)\b", lambda m: str(symbols.get(m.group(1), m.group(1))), expr)
    try:
        return str(eval(expr, {"__builtins__": {}}))
    except Exception:
        return ""


# Selectors whose Swift name neither NS_SWIFT_NAME nor the 'With' rule gives (the importer's
# preposition rule, here only where it applies).
SELECTOR_SWIFT_NAMES = {
    "rightForIdentifier:completion:": "right(forIdentifier:completion:)",
}


def selector_swift_name(selector):
    if selector in SELECTOR_SWIFT_NAMES:
        return SELECTOR_SWIFT_NAMES[selector]
    pieces = [p for p in selector.split(":")]
    if len(pieces) == 1:
        return pieces[0] + "()"
    pieces = pieces[:-1]
    first = pieces[0]
    labels = ["_"]
    m = re.match(r"(\w+?)With([A-Z]\w*)$", first)
    if m:
        first, labels = m.group(1), [lower_first_word(m.group(2))]
    labels += pieces[1:]
    return "%s(%s)" % (first, "".join(l + ":" for l in labels))


def class_property_swift_name(class_name, prop, prop_type):
    """Class properties returning their class drop the class-name suffix words
    (LARightStore.sharedStore -> shared, LAAuthenticationRequirement.defaultRequirement -> default)."""
    if prop_type != class_name:
        return prop
    pw, cw = words(prop), words(class_name)
    n = 0
    while n < len(pw) - 1 and n < len(cw) and pw[-1 - n] == cw[-1 - n]:
        n += 1
    return "".join(pw[:len(pw) - n]) if n else prop


class Extractor:
    def __init__(self):
        self.rows = []
        self.excluded = OrderedDict()   # header -> {reason: count}
        self.symbols = {}               # macro and enum-case values
        self.error_enums = set()

    def exclude(self, header, reason):
        counts = self.excluded.setdefault(header, OrderedDict())
        counts[reason] = counts.get(reason, 0) + 1

    def add(self, header, name, kind, availability, swift, value=""):
        if availability.ns_unavailable:
            self.exclude(header, "init/new marked NS_UNAVAILABLE")
            return
        if availability.unavailable:
            self.exclude(header, "unavailable on iOS")
            return
        if availability.deprecated:
            self.exclude(header, "deprecated on iOS")
            return
        self.rows.append(OrderedDict(name=name, kind=kind, header=header,
                                     ios=availability.introduced or "", value=value, swift=swift))

    # -- LocalAuthentication's apinotes: NS_ENUMs that are error codes ------------------------
    def read_apinotes(self, text):
        for m in re.finditer(r"-\s*Name:\s*(\w+)\s*\n\s*NSErrorDomain:\s*(\w+)", text):
            self.error_enums.add(m.group(1))

    # -- C and Objective-C headers --------------------------------------------------------------
    def read_header(self, header, text):
        code, defines = preprocess(strip_comments(text))
        if header == "LAPublicDefines.h":
            for name, value in defines:
                if name.startswith("k"):
                    v = eval_value(value, self.symbols)
                    self.symbols[name] = v
                    kind = "macro (string)" if v.startswith('"') else "macro"
                    self.add(header, name, kind, Availability(), name, v)
            return
        for marker in BARE_MARKERS:
            code = code.replace(marker, " ")
        container = re.compile(r"@(interface|protocol)\s+(\w+)\b(?!\s*[;,])")
        i, buf, depth = 0, [], 0
        while i < len(code):
            m = container.match(code, i) if code[i] == "@" else None
            if m and depth == 0:
                end = code.index("@end", i)
                self.read_container(header, "".join(buf), code[i:end])
                buf, i = [], end + 4
                continue
            ch = code[i]
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            if ch == ";" and depth == 0:
                self.read_statement(header, "".join(buf))
                buf = []
            else:
                buf.append(ch)
            i += 1

    def read_statement(self, header, statement):
        s = " ".join(statement.split())
        if not s or s.startswith("@class") or s.startswith("@protocol") or s.startswith("#"):
            return
        em = re.search(r"\b(NS_ENUM|NS_OPTIONS|CF_ENUM|CF_OPTIONS|NS_ERROR_ENUM|NS_CLOSED_ENUM)\s*\(", s)
        if em and "{" in s:
            return self.read_enum(header, s, em)
        if not s.startswith("typedef") and re.search(r"\bstruct\b[^{}]*\{", s):
            rest, attributes = take_attributes(s[:s.index("{")] + s[s.rindex("}") + 1:])
            name = re.findall(r"\b\w+\b", rest.replace("struct", ""))[-1]
            return self.add(header, name, "struct", Availability.parse(attributes), name)
        rest, attributes = take_attributes(s)
        availability = Availability.parse(attributes)
        rest = " ".join(rest.split())
        if rest.startswith("typedef"):
            block = re.search(r"\(\s*\^\s*(\w+)\s*\)", rest)
            name = block.group(1) if block else re.findall(r"\b\w+\b", rest)[-1]
            if re.match(r"typedef struct (\w+) \1$", rest):
                return
            swift = name
            if re.search(r"\bstruct\s+__\w+\s*\*", rest) and "CF_BRIDGED_TYPE" in s and name.endswith("Ref"):
                swift = name[:-3]
            return self.add(header, name, "type", availability, swift)
        if rest.startswith("extern"):
            name = re.findall(r"\b\w+\b", rest)[-1]
            ctype = re.match(r"extern\s+(?:const\s+)?(\w+)", rest).group(1)
            swift = name
            if ctype in ("SecKeyAlgorithm", "SecKeyKeyExchangeParameter"):
                swift = "%s.%s" % (ctype, lower_first_word(name[len("k" + ctype):]))
            kind = "constant" if ctype != "SecKeyAlgorithm" else "algorithm"
            return self.add(header, name, kind, availability, swift)
        fm = re.search(r"\b([A-Za-z_]\w*)\s*\(", rest)
        if fm:
            return self.add(header, fm.group(1), "function", availability, fm.group(1))
        print("api-coverage: %s: statement not understood: %s" % (header, s[:100]), file=sys.stderr)

    def read_enum(self, header, s, em):
        open_brace = s.index("{")
        close_brace = s.rindex("}")
        args = s[em.end():balanced(s, em.end() - 1) - 1]
        outside = s[:em.start()] + s[balanced(s, em.end() - 1):open_brace] + s[close_brace + 1:]
        _, attributes = take_attributes(outside)
        enum_availability = Availability.parse(attributes)
        parts = [p.strip() for p in args.split(",")]
        type_name = parts[1] if len(parts) > 1 else None
        options = em.group(1) in ("NS_OPTIONS", "CF_OPTIONS")
        cases, previous = [], -1
        for entry in split_top(s[open_brace + 1:close_brace]):
            text, case_attributes = take_attributes(entry)
            name = re.match(r"\s*(\w+)", text).group(1)
            value = ""
            if "=" in text:
                value = eval_value(text.split("=", 1)[1], self.symbols)
            else:
                value = str(int(previous) + 1) if re.match(r"-?\d+$", str(previous)) else ""
            previous = value
            self.symbols[name] = value
            availability = Availability.parse(case_attributes)
            cases.append((name, value, availability))
        if type_name:
            swift_type = enum_availability.swift_name or type_name
            if type_name in self.error_enums:
                swift_type += ".Code"
            kind = "options" if options else "enum"
            self.add(header, type_name, kind, Availability.parse(attributes), swift_type.replace(".Code", ""))
            n = case_prefix(type_name, [name for name, _, a in cases if a.counts])
            for name, value, availability in cases:
                swift = "%s.%s" % (swift_type, strip_case(name, n)) if availability.counts else name
                self.add(header, name, "option" if options else "case",
                         availability.inherit(enum_availability), swift, value)
        else:
            for name, value, availability in cases:
                if header == "SecBase.h" and not name.startswith("errSec"):
                    self.exclude(header, "outside the contract (SecureTransport errSSL* codes)")
                    continue
                self.add(header, name, "error code" if name.startswith("errSec") else "constant",
                         availability.inherit(enum_availability), name, value)

    def read_container(self, header, prefix, block):
        _, attributes = take_attributes(prefix)
        availability = Availability.parse(attributes)
        head, _, body = block.partition("\n")
        hm = re.match(r"@(interface|protocol)\s+(\w+)", head)
        kind, name = ("class" if hm.group(1) == "interface" else "protocol"), hm.group(2)
        swift_type = availability.swift_name or name
        self.add(header, name, kind, availability,
                 swift_type if kind == "class" else "any " + swift_type)
        for statement in split_top(body, ";"):
            s = " ".join(statement.split())
            if not s:
                continue
            if s.startswith("typedef") or s.startswith("extern"):
                self.read_statement(header, s)     # an enum or constant declared inside @interface
                continue
            rest, member_attributes = take_attributes(s)
            member = Availability.parse(member_attributes).inherit(availability)
            rest = " ".join(rest.split())
            if rest.startswith("@property"):
                group_end = balanced(rest, rest.index("(")) if "(" in rest.split()[1][:1] else len("@property")
                group = rest[len("@property"):group_end]
                declaration = rest[group_end:]
                identifiers = re.findall(r"\b\w+\b", declaration)
                prop = identifiers[-1]
                prop_type = [w for w in identifiers[:-1] if w not in NULLABILITY][0]
                is_class = re.search(r"\bclass\b", group) is not None
                swift_prop = member.swift_name or (class_property_swift_name(name, prop, prop_type) if is_class else prop)
                self.add(header, "%s.%s" % (name, prop), "class property" if is_class else "property",
                         member, "%s.%s" % (swift_type, swift_prop))
            elif rest[:1] in "-+":
                selector = self.selector(rest)
                if selector is None:
                    continue
                static = rest[0] == "+"
                if selector == "init" or selector.startswith("initWith"):
                    swift, kind = selector_swift_name(selector), "init"
                else:
                    swift = member.swift_name or selector_swift_name(selector)
                    kind = "class method" if static else "method"
                self.add(header, "%s[%s %s]" % (rest[0], name, selector), kind, member,
                         "%s.%s" % (swift_type, swift))
            else:
                print("api-coverage: %s: member not understood: %s" % (header, s[:100]), file=sys.stderr)

    @staticmethod
    def selector(declaration):
        text, i = declaration, 1
        while text[i] == " ":
            i += 1
        if text[i] == "(":
            i = balanced(text, i)
        pieces = []
        while True:
            m = re.match(r"\s*([A-Za-z_]\w*)", text[i:])
            if not m or (pieces and re.match(r"[A-Z_]+$", m.group(1))):
                break
            word = m.group(1)
            j = i + m.end()
            while j < len(text) and text[j] == " ":
                j += 1
            if j < len(text) and text[j] == ":":
                j += 1
                while j < len(text) and text[j] == " ":
                    j += 1
                if j < len(text) and text[j] == "(":
                    j = balanced(text, j)
                pm = re.match(r"\s*\w+", text[j:])
                j += pm.end() if pm else 0
                pieces.append(word + ":")
                i = j
            else:
                if not pieces:
                    pieces.append(word)
                break
        return "".join(pieces) or None

    # -- CryptoKit's Swift interface ------------------------------------------------------------
    def read_swiftinterface(self, text):
        header = "CryptoKit SecureEnclave"
        stack = []          # (path or None, ios)
        pending_ios = None
        seen = {}
        rows = []
        for raw in text.split("\n"):
            line = raw.strip()
            if not line or line.startswith("//"):
                continue
            am = re.match(r"@available\((.*)\)$", line)
            if am:
                im = re.search(r"\biOS (\d+(?:\.\d+)*)", am.group(1))
                pending_ios = im.group(1) if im else pending_ios
                continue
            parent_path = next((p for p, _ in reversed(stack) if p is not None), "")
            parent_ios = next((v for _, v in reversed(stack) if v), None)
            ios = pending_ios or parent_ios
            pending_ios = None
            if line == "}":
                stack.pop()
                continue
            xm = re.match(r"extension\s+(?:CryptoKit\.)?([\w.]+)\s*(?::\s*([^{]+))?\{", line)
            if xm:
                path = xm.group(1)
                stack.append((path, ios))
                for proto in (xm.group(2) or "").split(","):
                    proto = proto.strip().replace("CryptoKit.", "")
                    if proto and path.startswith("SecureEnclave"):
                        rows.append(("%s: %s" % (path, proto), "conformance", ios, path))
                continue
            tm = re.match(r"public\s+(enum|struct|class)\s+(\w+)[^{]*\{", line)
            if tm:
                path = (parent_path + "." if parent_path else "") + tm.group(2)
                stack.append((path, ios))
                if path.startswith("SecureEnclave"):
                    rows.append((path, tm.group(1), ios, path))
                if line.endswith("}"):
                    stack.pop()
                continue
            if not parent_path.startswith("SecureEnclave"):
                if line.endswith("{"):
                    stack.append((None, None))
                continue
            pm = re.match(r"public\s+(static\s+)?(let|var)\s+(\w+)", line)
            fm = re.match(r"public\s+(static\s+)?func\s+(\w+)\s*(<[^>]*>)?\s*\(", line)
            im = re.match(r"public\s+init\s*(<[^>]*>)?\s*\(", line)
            if pm:
                kind = "static property" if pm.group(1) else "property"
                rows.append(("%s.%s" % (parent_path, pm.group(3)), kind, ios, "%s.%s" % (parent_path, pm.group(3))))
            elif fm or im:
                start = line.index("(", (fm or im).end() - 1)
                params = line[start + 1:balanced(line, start) - 1]
                labels = "".join((p.split(":")[0].split()[0] if p.strip() else "") + ":" for p in split_top(params))
                base = fm.group(2) if fm else "init"
                swift_name = "%s(%s)" % (base, labels)
                constraint = re.search(r"where\s+\w+\s*:\s*(?:\w+\.)?(\w+)", line)
                key = "%s.%s" % (parent_path, swift_name)
                seen[key] = seen.get(key, 0) + 1
                kind = "init" if im else ("static method" if fm.group(1) else "method")
                rows.append((key, kind, ios, key, constraint.group(1) if constraint else ""))
            if line.endswith("{"):
                stack.append((None, None))
        for row in rows:
            name, kind, ios, swift = row[:4]
            if seen.get(name, 0) > 1 and len(row) > 4 and row[4]:
                name = "%s (%s)" % (name, row[4])
            a = Availability()
            a.introduced = ios
            self.add(header, name, kind, a, swift)


def extract(directory):
    ex = Extractor()
    files = sorted(os.listdir(directory))
    for f in files:
        if f.endswith(".apinotes"):
            ex.read_apinotes(open(os.path.join(directory, f)).read())
    headers = [h for h in HEADER_ORDER if h in files]
    headers += [f for f in files if f.startswith("LA") and f.endswith(".h") and f not in headers and f != "LABase.h"]
    # LAPublicDefines.h first: the enums' values refer to its macros.
    for h in ["LAPublicDefines.h"] + [h for h in headers if h != "LAPublicDefines.h"]:
        if h in files:
            ex.read_header(h, open(os.path.join(directory, h)).read())
    for f in files:
        if f.endswith(".swiftinterface"):
            ex.read_swiftinterface(open(os.path.join(directory, f)).read())
    missing = [h for h in SECURITY_HEADERS + ["LAContext.h", "LAError.h"] if h not in files]
    if missing:
        sys.exit("api-coverage: %s lacks %s" % (directory, ", ".join(missing)))
    order = {h: i for i, h in enumerate(HEADER_ORDER)}
    ex.rows.sort(key=lambda r: order.get(r["header"], len(order)))
    names = [r["name"] for r in ex.rows]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        sys.exit("api-coverage: duplicate declarations: " + ", ".join(duplicates))
    return ex.rows, ex.excluded


# ---------------------------------------------------------------------------------------------
# The committed files
# ---------------------------------------------------------------------------------------------

def read_tsv(path):
    meta, rows, header = OrderedDict(), [], None
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#"):
                m = re.match(r"#\s*([\w-]+):\s*(.*)", line)
                if m:
                    meta[m.group(1)] = m.group(2)
                continue
            if not line.strip():
                continue
            fields = line.split("\t")
            if header is None:
                header = fields
                continue
            rows.append(OrderedDict(zip(header, fields + [""] * (len(header) - len(fields)))))
    return meta, rows


def declarations_text(rows, excluded, sdk):
    out = ["# Declarations of Apple's iOS SDK that docs/API-COVERAGE.md covers: facts only (names,",
           "# kinds, iOS versions, values, Swift spellings), written by scripts/api-coverage.py --headers.",
           "# sdk: %s" % sdk]
    for header, reasons in excluded.items():
        out.append("# excluded %s: %s" % (header, "; ".join("%d %s" % (n, r) for r, n in reasons.items())))
    out.append("\t".join(COLUMNS))
    for r in rows:
        out.append("\t".join(r[c] for c in COLUMNS))
    return "\n".join(out) + "\n"


def percent(n, total):
    return "%.1f%%" % (100.0 * n / total) if total else "-"


def md_escape(text):
    return text.replace("|", "\\|")


def table_text(meta, declarations, status):
    total = len(declarations)
    counts = {s: sum(1 for d in declarations if status[d["name"]]["status"] == s) for s in STATUSES}
    out = [
        "# API coverage: Apple's iOS headers as the contract",
        "",
        "Generated by `scripts/api-coverage.py` from `docs/api-coverage/declarations.tsv` (every",
        "declaration of the headers below that iOS offers and has not deprecated, extracted from",
        "the SDK: names and facts only) and `docs/api-coverage/status.tsv` (kept by hand). Do not edit",
        "this file: edit `status.tsv` and run `scripts/api-coverage.py`; `--check` fails when this",
        "file or the test is stale. `Tests/LocalAuthenticationTests/APICoverageTests.swift`, generated",
        "too, names every declaration called implemented or differs, so one that disappears fails to",
        "compile.",
        "",
        "SDK: %s." % meta.get("sdk", "?"),
        "",
        "- **implemented**: same name, shape and behaviour as on iOS (within what Touchstone simulates).",
        "- **differs**: present, and knowingly different; the note says how.",
        "- **missing**: not present; the note says why.",
        "",
        "**Total: %d declarations; %d implemented, %d differ, %d missing: %s implemented or differing "
        "(%s implemented alone).**" % (
            total, counts["implemented"], counts["differs"], counts["missing"],
            percent(counts["implemented"] + counts["differs"], total), percent(counts["implemented"], total)),
        "",
        "| header | declarations | implemented | differs | missing | covered |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    headers = []
    for d in declarations:
        if d["header"] not in headers:
            headers.append(d["header"])
    for h in headers:
        ds = [d for d in declarations if d["header"] == h]
        c = {s: sum(1 for d in ds if status[d["name"]]["status"] == s) for s in STATUSES}
        out.append("| [%s](#%s) | %d | %d | %d | %d | %s |" % (
            h, re.sub(r"[^a-z0-9 -]", "", h.lower()).replace(" ", "-"), len(ds), c["implemented"],
            c["differs"], c["missing"], percent(c["implemented"] + c["differs"], len(ds))))
    excluded = [(k[len("excluded "):], v) for k, v in meta.items() if k.startswith("excluded ")]
    out += ["", "Not counted (declared in these headers, but not part of the iOS contract):", ""]
    for h, v in excluded:
        out.append("- %s: %s" % (h, v))
    gaps = OrderedDict()
    for d in declarations:
        s = status[d["name"]]
        if s["status"] == "missing":
            gaps.setdefault(s.get("note", ""), []).append(d["name"])
    out += ["", "## Gaps", "", "The missing declarations, by reason (the work left):", ""]
    for note, names in gaps.items():
        out.append("- %s (%d): %s" % (md_escape(note), len(names), ", ".join("`%s`" % md_escape(n) for n in names)))
    for h in headers:
        ds = [d for d in declarations if d["header"] == h]
        c = {s: sum(1 for d in ds if status[d["name"]]["status"] == s) for s in STATUSES}
        out += ["", "## %s" % h, "",
                "%d declarations: %d implemented, %d differ, %d missing (%s covered)." % (
                    len(ds), c["implemented"], c["differs"], c["missing"],
                    percent(c["implemented"] + c["differs"], len(ds))),
                "", "| declaration | kind | iOS | Swift | status | how / why |", "|---|---|---|---|---|---|"]
        for d in ds:
            s = status[d["name"]]
            value = (" = %s" % d["value"]) if d["value"] and not d["value"].startswith('"') else ""
            out.append("| `%s`%s | %s | %s | `%s` | %s | %s |" % (
                md_escape(d["name"]), value, d["kind"], d["ios"], md_escape(d["swift"]), s["status"],
                md_escape(s.get("note", ""))))
    return "\n".join(out) + "\n"


def reference(d, check):
    """A Swift statement that compiles only while the declaration exists."""
    if check:
        return check
    kind, swift = d["kind"], d["swift"]
    if kind in ("class", "enum", "options", "type", "struct"):
        return "_ = %s.self" % swift
    if kind == "protocol":
        return "_ = (%s).self" % swift
    if kind == "property":
        owner, _, prop = swift.rpartition(".")
        return "_ = \\%s.%s" % (owner, prop)
    if kind == "init":
        owner, _, init = swift.partition(".init")
        return "_ = %s.init%s" % (owner, init) if init != "()" else "_ = %s.init as () -> %s" % (owner, owner)
    if kind == "conformance":
        owner, _, proto = d["name"].partition(": ")
        return "do { func conforms<T: %s>(_: T.Type) {}; conforms(%s.self) }" % (proto, owner)
    if kind in ("method", "class method", "static method") and swift.endswith("()"):
        return "_ = %s" % swift[:-2]
    return "_ = %s" % swift


def test_text(declarations, status):
    referenced = [d for d in declarations if status[d["name"]]["status"] in ("implemented", "differs")]
    lines = [
        "// Generated by scripts/api-coverage.py from docs/api-coverage/: do not edit.",
        "#if !canImport(Darwin)",
        "import CryptoKit",
        "import Foundation",
        "import LocalAuthentication",
        "import Security",
        "import Testing",
        "",
        "/// Every declaration docs/API-COVERAGE.md calls implemented or differs, by its Swift name:",
        "/// this file stops compiling when one of them disappears. Never called.",
        "@available(*, deprecated, message: \"API coverage references; never called\")",
        "private func apiCoverageReferences() {",
    ]
    header = None
    for d in referenced:
        if d["header"] != header:
            header = d["header"]
            lines.append("    // %s" % header)
        lines.append("    %s  // %s" % (reference(d, status[d["name"]].get("check", "")), d["name"]))
    valued = [d for d in referenced if d["value"] and d["kind"] in ("case", "option", "macro", "macro (string)", "error code")]
    lines += [
        "}",
        "",
        "/// Apple's values of the codes, cases, options and C macros the table calls implemented or",
        "/// differs: (name, value here, value in Apple's header).",
        "private let apiCoverageIntegerValues: [(String, Int, Int)] = [",
    ]
    for d in valued:
        if d["kind"] == "macro (string)":
            continue
        expression = d["swift"] if d["kind"] in ("macro", "error code") else d["swift"] + ".rawValue"
        lines.append("    (\"%s\", Int(%s), %s)," % (d["name"], expression, d["value"]))
    lines += ["]", "", "private let apiCoverageStringValues: [(String, String, String)] = ["]
    for d in valued:
        if d["kind"] == "macro (string)":
            lines.append("    (\"%s\", %s, %s)," % (d["name"], d["swift"], d["value"]))
    lines += [
        "]",
        "",
        "@Suite(\"API coverage (docs/API-COVERAGE.md)\")",
        "struct APICoverageTests {",
        "    /// How many declarations `apiCoverageReferences()` names (implemented + differs).",
        "    static let referenced = %d" % len(referenced),
        "",
        "    static let directory = URL(fileURLWithPath: #filePath)",
        "        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()",
        "        .appendingPathComponent(\"docs/api-coverage\")",
        "",
        "    /// The rows of a tab-separated file of docs/api-coverage, by column name.",
        "    static func rows(_ file: String) throws -> [[String: String]] {",
        "        let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)",
        "        var header: [String]?",
        "        var rows: [[String: String]] = []",
        "        for line in text.split(separator: \"\\n\") where !line.hasPrefix(\"#\") {",
        "            let fields = line.split(separator: \"\\t\", omittingEmptySubsequences: false).map(String.init)",
        "            guard let columns = header else { header = fields; continue }",
        "            rows.append(Dictionary(uniqueKeysWithValues: zip(columns, fields)))",
        "        }",
        "        return rows",
        "    }",
        "",
        "    @Test(\"every declaration of Apple's headers has one status, and the references are current\")",
        "    func everyDeclarationHasAStatus() throws {",
        "        let declarations = try Self.rows(\"declarations.tsv\").compactMap { $0[\"name\"] }",
        "        let status = try Self.rows(\"status.tsv\")",
        "        let named = status.compactMap { $0[\"name\"] }",
        "        #expect(Set(declarations).count == declarations.count, \"a declaration is listed twice\")",
        "        #expect(Set(named).count == named.count, \"a status is given twice\")",
        "        #expect(Set(named) == Set(declarations), \"declarations without a status, or statuses of no declaration\")",
        "        for row in status {",
        "            #expect([\"implemented\", \"differs\", \"missing\"].contains(row[\"status\"] ?? \"\"), \"\\(row)\")",
        "            if row[\"status\"] != \"implemented\" { #expect(!(row[\"note\"] ?? \"\").isEmpty, \"\\(row) needs a note\") }",
        "        }",
        "        let covered = status.filter { $0[\"status\"] == \"implemented\" || $0[\"status\"] == \"differs\" }.count",
        "        #expect(covered == Self.referenced, \"status.tsv changed: run scripts/api-coverage.py\")",
        "    }",
        "",
        "    @Test(\"codes, cases, options and C macros have Apple's values\")",
        "    func appleValues() {",
        "        for (name, here, apple) in apiCoverageIntegerValues { #expect(here == apple, \"\\(name)\") }",
        "        for (name, here, apple) in apiCoverageStringValues { #expect(here == apple, \"\\(name)\") }",
        "    }",
        "}",
        "#endif",
    ]
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--headers", help="directory of iOS SDK headers to extract declarations from")
    parser.add_argument("--sdk", default="", help="what the headers are (recorded in declarations.tsv)")
    parser.add_argument("--check", action="store_true", help="fail when a generated file is stale")
    args = parser.parse_args()

    outputs = OrderedDict()
    if args.headers:
        rows, excluded = extract(args.headers)
        outputs[DECLARATIONS] = declarations_text(rows, excluded, args.sdk or args.headers)
        meta, declarations = OrderedDict(), rows
        for k, v in excluded.items():
            meta["excluded " + k] = "; ".join("%d %s" % (n, r) for r, n in v.items())
        meta["sdk"] = args.sdk or args.headers
    else:
        meta, declarations = read_tsv(DECLARATIONS)
        text = open(DECLARATIONS, encoding="utf-8").read()
        for m in re.finditer(r"^# excluded (.*?): (.*)$", text, re.M):
            meta["excluded " + m.group(1)] = m.group(2)

    _, status_rows = read_tsv(STATUS) if os.path.exists(STATUS) else ({}, [])
    status = OrderedDict((r["name"], r) for r in status_rows)
    problems = []
    names = {d["name"] for d in declarations}
    for d in declarations:
        if d["name"] not in status:
            problems.append("no status for %s" % d["name"])
            status[d["name"]] = {"status": "missing", "note": "(no status yet)"}
    for name, r in status.items():
        if name not in names:
            problems.append("status of an unknown declaration: %s" % name)
        elif r["status"] not in STATUSES:
            problems.append("%s: status must be one of %s, not %r" % (name, "/".join(STATUSES), r["status"]))
        elif r["status"] != "implemented" and not r.get("note"):
            problems.append("%s: a %s declaration needs a note" % (name, r["status"]))

    outputs[TABLE] = table_text(meta, declarations, status)
    outputs[TEST] = test_text(declarations, status)

    stale = []
    for path, text in outputs.items():
        current = open(path, encoding="utf-8").read() if os.path.exists(path) else None
        if current != text:
            stale.append(os.path.relpath(path, ROOT))
            if not args.check:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text)
    for p in problems[:20]:
        print("api-coverage: " + p, file=sys.stderr)
    if len(problems) > 20:
        print("api-coverage: ... and %d more problems" % (len(problems) - 20), file=sys.stderr)
    total = len(declarations)
    covered = sum(1 for d in declarations if status[d["name"]]["status"] in ("implemented", "differs"))
    print("api-coverage: %d declarations, %d implemented or differing (%s)" % (total, covered, percent(covered, total)))
    if args.check and stale:
        print("api-coverage: stale: %s (run scripts/api-coverage.py)" % ", ".join(stale), file=sys.stderr)
    if problems or (args.check and stale):
        sys.exit(1)


if __name__ == "__main__":
    main()
