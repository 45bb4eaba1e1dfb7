import Testing
import TouchstoneTesting
@testable import Touchstone
import TouchstoneBuiltins

/// REFERENCE §2: the policies and their raw values.
@Suite("§2 Policies")
struct PolicyTests {
    @Test("policy raw values are LAPolicy's 1 to 5")
    func rawValues() throws {
        let rig = try TestDevice()
        #expect(try rig.policy("deviceOwnerAuthenticationWithBiometrics").rawValue == 1)
        #expect(try rig.policy("deviceOwnerAuthentication").rawValue == 2)
        #expect(try rig.policy("deviceOwnerAuthenticationWithCompanion").rawValue == 3)
        #expect(try rig.policy("deviceOwnerAuthenticationWithBiometricsOrCompanion").rawValue == 4)
        #expect(try rig.policy("deviceOwnerAuthenticationWithWristDetection").rawValue == 5)
        #expect(try rig.policy("2").name == "owner")
    }

    @Test("an unknown policy name lists the known ones")
    func unknownPolicy() throws {
        let rig = try TestDevice()
        #expect {
            try rig.policy("fingers")
        } throws: { error in
            guard case let ConfigurationError.unknownPolicy(name, known) = error else { return false }
            return name == "fingers" && known.contains("biometrics (1)") && known.contains("owner (2)")
        }
    }

    @Test("biometrics-only: the fallback button ends the evaluation with userFallback")
    func biometricsFallback() async throws {
        let rig = try TestDevice()
        #expect(try await rig.outcome("biometrics", [.noMatch, .fallback]) == .userFallback)
    }

    @Test("device-owner: the fallback button opens the passcode prompt")
    func ownerFallbackOpensPasscode() async throws {
        let rig = try TestDevice()
        let result = try await rig.evaluate("owner", [.noMatch, .fallback, .passcode("1234")])
        #expect(result.methods == [.passcode])
        #expect(result.trace.rules.contains(.fallbackOpensPasscode))
    }

    @Test("device-owner: passcode alone when biometry is missing, not enrolled or locked out")
    func ownerPasscodeWhenBiometryUnusable() async throws {
        let notEnrolled = try TestDevice(enrolled: [])
        #expect(try await notEnrolled.evaluate("owner", [.passcode("1234")]).methods == [.passcode])

        let absent = try TestDevice(sensorOptions: ["hardware": "absent"])
        #expect(try await absent.evaluate("owner", [.passcode("1234")]).methods == [.passcode])

        let noSensor = try TestDevice(sensor: nil, enrolled: [])
        #expect(try await noSensor.evaluate("owner", [.passcode("1234")]).methods == [.passcode])

        let locked = try TestDevice()
        _ = try await locked.outcome("biometrics", .failures(3))
        _ = try await locked.outcome("biometrics", .failures(2))
        let result = try await locked.evaluate("owner", [.passcode("1234")])
        #expect(result.methods == [.passcode])
        #expect(result.trace.rules.first == .passcodeWhenBiometryUnusable)
    }

    @Test("companion policy needs a paired, reachable companion")
    func companionPolicy() async throws {
        let none = try TestDevice()
        #expect(try none.canEvaluate("companion") == .companionNotAvailable)

        let unreachable = try TestDevice(companion: ["reachable": "false"])
        #expect(try unreachable.canEvaluate("companion") == .companionNotAvailable)

        let paired = try TestDevice(companion: [:])
        #expect(try paired.canEvaluate("companion") == nil)
        #expect(try await paired.evaluate("companion", [.approveOnCompanion]).methods == [.companion])
        #expect(try await paired.outcome("companion", [.cancel]) == .userCancel)
    }

    @Test("biometrics-or-companion accepts either")
    func biometricsOrCompanion() async throws {
        let rig = try TestDevice(enrolled: [], companion: [:])
        #expect(try rig.canEvaluate("biometrics-or-companion") == nil)
        #expect(try await rig.evaluate("biometrics-or-companion", [.approveOnCompanion]).methods == [.companion])

        let both = try TestDevice(companion: [:])
        #expect(try await both.evaluate("biometrics-or-companion", [.present("thumb")]).methods == [.biometry])
        #expect(try await both.evaluate("biometrics-or-companion", [.approveOnCompanion]).methods == [.companion])

        let neither = try TestDevice(enrolled: [])
        #expect(try neither.canEvaluate("biometrics-or-companion") == .biometryNotEnrolled)
    }

    @Test("wrist detection reports biometryNotAvailable on Linux")
    func wristDetection() async throws {
        let rig = try TestDevice()
        #expect(try rig.canEvaluate("wrist") == .biometryNotAvailable)
        #expect(try await rig.outcome("wrist", []) == .biometryNotAvailable)
    }

    @Test("custom biometrics-and-passcode needs both factors in order")
    func biometricsAndPasscode() async throws {
        let rig = try TestDevice()
        let result = try await rig.evaluate("biometrics-and-passcode", [.present("thumb"), .passcode("1234")])
        #expect(result.methods == [.biometry, .passcode])
        #expect(try await rig.outcome("biometrics-and-passcode", [.present("thumb"), .cancel]) == .userCancel)
    }
}

@Suite("Typed policy names")
struct PolicyNameTests {
    @Test("each standard policy name resolves to its LAPolicy, and a context evaluates by name")
    func namesResolve() async throws {
        let rig = try TestDevice()
        let expected: [(PolicyName, Int?)] = [(.biometrics, 1), (.deviceOwner, 2), (.companion, 3),
                                              (.biometricsOrCompanion, 4), (.wristDetection, 5), (.biometricsAndPasscode, nil)]
        for (name, rawValue) in expected {
            #expect(try rig.authenticator.policy(name).rawValue == rawValue, "\(name)")
        }
        #expect(throws: ConfigurationError.self) { try rig.authenticator.policy("acme.nothing") }
        let context = rig.authenticator.makeContext()
        #expect(try context.canEvaluate(.biometrics) == nil)
        rig.user.enqueue(.present("thumb"))
        #expect(try await context.evaluate(.biometrics, reason: "Unlock").methods == [.biometry])
    }
}
