import Foundation
import SystemSupport
import Testing

/// The zone database reader: real zones of the system's database across their daylight-saving
/// changes, the POSIX rule past the table, version 1 files, fixed offsets, and the errors of
/// unknown names and corrupt files.
@Suite struct ZoneTests {
    static let systemDatabase = FileStatus(path: "/usr/share/zoneinfo/Europe/London")?.kind == .regular

    /// A folder of its own holding the given files, for `ZoneDatabase.rules(for:directory:)`.
    func database(_ files: [String: [UInt8]]) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("zones-\(UUID().uuidString)")
        for (name, bytes) in files {
            let file = folder.appendingPathComponent(name)
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try Data(bytes).write(to: file)
        }
        return folder.path
    }

    func offset(_ zone: ZoneRules, _ seconds: Int) -> String {
        let offset = zone.offset(atEpochSeconds: seconds)
        return "\(offset.seconds) \(offset.abbreviation)\(offset.isDaylightSaving ? " dst" : "")"
    }

    @Test func utcNeedsNoFile() throws {
        let utc = try ZoneDatabase.rules(for: "UTC", directory: "/nonexistent")
        #expect(offset(utc, 0) == "0 UTC")
        #expect(offset(utc, 4_102_444_800) == "0 UTC")
        #expect(
            try ZoneDatabase.rules(for: "GMT", directory: "/nonexistent").offset(atEpochSeconds: 0).abbreviation
                == "GMT"
        )
    }

    @Test(.enabled(if: systemDatabase)) func londonAcrossBothChangesOf2024() throws {
        let london = try ZoneDatabase.rules(for: "Europe/London")
        #expect(offset(london, 1_711_846_799) == "0 GMT")
        #expect(offset(london, 1_711_846_800) == "3600 BST dst")
        #expect(offset(london, 1_729_990_799) == "3600 BST dst")
        #expect(offset(london, 1_729_990_800) == "0 GMT")
    }

    @Test(.enabled(if: systemDatabase)) func newYorkAcrossBothChangesOf2024() throws {
        let newYork = try ZoneDatabase.rules(for: "America/New_York")
        #expect(offset(newYork, 1_710_053_999) == "-18000 EST")
        #expect(offset(newYork, 1_710_054_000) == "-14400 EDT dst")
        #expect(offset(newYork, 1_730_613_599) == "-14400 EDT dst")
        #expect(offset(newYork, 1_730_613_600) == "-18000 EST")
        #expect(newYork.local(atEpochSeconds: 1_710_054_000).description == "2024-03-10T03:00:00")
    }

    /// 2100 is past every table (the database's files stop in 2037): only the footer's rule answers.
    @Test(.enabled(if: systemDatabase)) func yearsPastTheTableFollowTheFootersRule() throws {
        let london = try ZoneDatabase.rules(for: "Europe/London")
        #expect(offset(london, 4_109_878_799) == "0 GMT")
        #expect(offset(london, 4_109_878_800) == "3600 BST dst")
        #expect(offset(london, 4_128_627_599) == "3600 BST dst")
        #expect(offset(london, 4_128_627_600) == "0 GMT")
        let newYork = try ZoneDatabase.rules(for: "America/New_York")
        #expect(offset(newYork, 4_118_126_400) == "-14400 EDT dst")
    }

    @Test func aFileWithOnlyAFooterIsItsRule() throws {
        let cet = TZifFile(
            types: [.init(seconds: 3600, isDST: false, name: "CET")],
            footer: "CET-1CEST,M3.5.0,M10.5.0/3"
        )
        let sydney = TZifFile(
            types: [.init(seconds: 36_000, isDST: false, name: "AEST")],
            footer: "AEST-10AEDT,M10.1.0,M4.1.0/3"
        )
        let numeric = TZifFile(types: [.init(seconds: -10_800, isDST: false, name: "-03")], footer: "<-03>3")
        let folder = try database(["Test/CET": cet.bytes, "Test/Sydney": sydney.bytes, "Test/Minus3": numeric.bytes])
        let paris = try ZoneDatabase.rules(for: "Test/CET", directory: folder)
        #expect(offset(paris, 1_711_846_799) == "3600 CET", "2024-03-31T00:59:59Z")
        #expect(offset(paris, 1_711_846_800) == "7200 CEST dst")
        #expect(offset(paris, 1_729_990_800) == "3600 CET")
        let south = try ZoneDatabase.rules(for: "Test/Sydney", directory: folder)
        #expect(offset(south, 1_704_067_200) == "39600 AEDT dst", "January is summer")
        #expect(offset(south, 1_719_792_000) == "36000 AEST", "July is winter")
        #expect(south.local(atEpochSeconds: 1_728_143_999).description == "2024-10-06T01:59:59")
        #expect(south.local(atEpochSeconds: 1_728_144_000).description == "2024-10-06T03:00:00")
        #expect(offset(try ZoneDatabase.rules(for: "Test/Minus3", directory: folder), 0) == "-10800 -03")
    }

    @Test func versionOneFilesAndTablesBeforeTheFooter() throws {
        var file = TZifFile(
            transitions: [(at: 1_000, type: 1), (at: 2_000, type: 0)],
            types: [.init(seconds: 0, isDST: false, name: "AAA"), .init(seconds: 7200, isDST: true, name: "BBB")]
        )
        file.version = 0
        var later = file
        later.version = UInt8(ascii: "3")
        later.footer = "CCC-3"
        let folder = try database(["One": file.bytes, "Three": later.bytes])
        let one = try ZoneDatabase.rules(for: "One", directory: folder)
        #expect(offset(one, 999) == "0 AAA")
        #expect(offset(one, 1_000) == "7200 BBB dst")
        #expect(offset(one, 1_999) == "7200 BBB dst")
        #expect(offset(one, 5_000_000_000) == "0 AAA", "no footer: the last type goes on")
        let three = try ZoneDatabase.rules(for: "Three", directory: folder)
        #expect(offset(three, 1_500) == "7200 BBB dst")
        #expect(offset(three, 2_000) == "10800 CCC", "from the last transition on, the footer")
    }

    @Test(.enabled(if: systemDatabase)) func wallClockTimesInGapsAndOverlapsResolveAsJavaDoes() throws {
        let london = try ZoneDatabase.rules(for: "Europe/London")
        // 01:30 on 2024-03-31 does not exist in London: moved an hour later, 02:30 BST.
        let gap = london.epochSeconds(forLocal: CivilDateTime(year: 2024, month: 3, day: 31, hour: 1, minute: 30))
        #expect(london.local(atEpochSeconds: gap).description == "2024-03-31T02:30:00")
        // 01:30 on 2024-10-27 happens twice: the earlier (BST) one.
        let overlap = london.epochSeconds(forLocal: CivilDateTime(year: 2024, month: 10, day: 27, hour: 1, minute: 30))
        #expect(overlap == 1_729_989_000)
        let plain = london.epochSeconds(forLocal: CivilDateTime(year: 2024, month: 7, day: 1, hour: 12))
        #expect(plain == 1_719_831_600)
    }

    @Test func fixedOffsetsAsJavaWritesThem() throws {
        #expect(offset(try ZoneDatabase.rules(for: "GMT+2", directory: "/nonexistent"), 0) == "7200 GMT+02:00")
        #expect(offset(try ZoneDatabase.rules(for: "UTC-03:30", directory: "/nonexistent"), 0) == "-12600 GMT-03:30")
        #expect(offset(try ZoneDatabase.rules(for: "+0530", directory: "/nonexistent"), 0) == "19800 GMT+05:30")
    }

    @Test(arguments: [
        ("Mars/Olympus", "no time zone \"Mars/Olympus\""),
        ("../../etc/passwd", "is not a time zone name"),
        ("/etc/passwd", "is not a time zone name"),
        ("Europe/./London", "is not a time zone name"),
        ("", "is not a time zone name"),
        ("GMT+99", "no time zone \"GMT+99\""),
    ])
    func unknownNamesAreErrors(_ name: String, _ message: String) throws {
        let folder = try database([:])
        #expect {
            _ = try ZoneDatabase.rules(for: name, directory: folder)
        } throws: { error in
            (error as? ZoneError)?.description.contains(message) == true
        }
    }

    @Test func corruptFilesAreErrorsThatSayWhat() throws {
        let good = TZifFile(
            transitions: [(at: 1_000, type: 0)],
            types: [.init(seconds: 3600, isDST: false, name: "ONE")],
            footer: "ONE-1"
        ).bytes
        var badIndex = TZifFile(
            transitions: [(at: 1_000, type: 0)],
            types: [.init(seconds: 0, isDST: false, name: "X")]
        )
        badIndex.transitions = [(at: 1_000, type: 5)]
        var unordered = TZifFile(types: [.init(seconds: 0, isDST: false, name: "XYZ")])
        unordered.transitions = [(at: 2_000, type: 0), (at: 1_000, type: 0)]
        let cases: [(String, [UInt8], String)] = [
            ("Empty", [], "not a TZif file"),
            ("Text", Array("# tzdata source\nZone Europe/Paris 0:09:21 - LMT\n".utf8), "not a TZif file"),
            ("Cut", Array(good.prefix(good.count - 12)), "ends early"),
            ("Footer", Array(good.dropLast(6)) + Array("+1x\n".utf8), "not a POSIX TZ rule"),
            ("Index", badIndex.bytes, "names type 5"),
            ("Order", unordered.bytes, "not later than"),
        ]
        let folder = try database(Dictionary(uniqueKeysWithValues: cases.map { ($0.0, $0.1) } + [("Good", good)]))
        #expect(offset(try ZoneDatabase.rules(for: "Good", directory: folder), 5_000) == "3600 ONE")
        for (name, _, message) in cases {
            #expect {
                _ = try ZoneDatabase.rules(for: name, directory: folder)
            } throws: { error in
                let text = (error as? ZoneError)?.description ?? ""
                return text.contains(message) && text.contains(folder + "/" + name)
            }
        }
    }
}
