import SystemSupport

/// A moment in UTC, to the second, for certificate validity: written into certificates, read
/// from them, and shown to people (`2027-12-31 23:59:59 UTC`). On SystemSupport's calendar.
package struct UTCDate: Sendable, Equatable, Comparable, CustomStringConvertible {
    package let epochSeconds: Int

    package init(epochSeconds: Int) {
        self.epochSeconds = epochSeconds
    }

    private var civil: CivilDateTime { CivilDateTime(localSeconds: epochSeconds) }

    package var year: Int { civil.year }

    /// `YYYYMMDDHHMMSS`.
    var digits: String {
        let c = civil
        return pad(c.year, 4) + pad(c.month, 2) + pad(c.day, 2) + pad(c.hour, 2) + pad(c.minute, 2) + pad(c.second, 2)
    }

    package var description: String {
        let c = civil
        return
            "\(pad(c.year, 4))-\(pad(c.month, 2))-\(pad(c.day, 2)) "
            + "\(pad(c.hour, 2)):\(pad(c.minute, 2)):\(pad(c.second, 2)) UTC"
    }

    package static func < (a: UTCDate, b: UTCDate) -> Bool { a.epochSeconds < b.epochSeconds }

    /// Reads a UTCTime (`YYMMDDHHMMSSZ`) or GeneralizedTime (`YYYYMMDDHHMMSSZ`) as DER writes
    /// them; nil for any other form.
    static func parse(_ bytes: ArraySlice<UInt8>, generalized: Bool) -> UTCDate? {
        let yearDigits = generalized ? 4 : 2
        guard bytes.count == yearDigits + 11, bytes.last == UInt8(ascii: "Z") else { return nil }
        var numbers: [Int] = []
        var index = bytes.startIndex
        for width in [yearDigits, 2, 2, 2, 2, 2] {
            var value = 0
            for _ in 0..<width {
                let byte = bytes[index]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                index += 1
            }
            numbers.append(value)
        }
        var year = numbers[0]
        if !generalized { year += year >= 50 ? 1900 : 2000 }
        let (month, day, hour, minute, second) = (numbers[1], numbers[2], numbers[3], numbers[4], numbers[5])
        guard (1...12).contains(month), day >= 1, day <= CivilCalendar.daysInMonth(year: year, month: month),
            hour < 24, minute < 60, second < 60
        else { return nil }
        let civil = CivilDateTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        return UTCDate(epochSeconds: civil.localSeconds)
    }
}

private func pad(_ value: Int, _ width: Int) -> String {
    DateText.zeroPadded(value, width: width)
}
