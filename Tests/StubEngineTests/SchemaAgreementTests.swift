import Foundation
import JSON
import NativeStubs
@testable import StubEngine
import XCTest

/// docs/stub.schema.json must agree with the loader: every bundled example and every case
/// below is accepted by both or rejected by both. The validator here implements the JSON Schema
/// 2020-12 keywords the schema uses, no more.
final class SchemaAgreementTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    func schema() throws -> MiniSchemaValidator {
        let bytes = try Data(contentsOf: Self.root.appendingPathComponent("docs/stub.schema.json"))
        return MiniSchemaValidator(root: try JSONParser.parse(Array(bytes)))
    }

    func testEveryBundledExampleIsValidForBoth() throws {
        let validator = try schema()
        let loader = StubLoader(directory: Self.root.appendingPathComponent("stubs").path)
        let files = loader.stubFiles()
        XCTAssertGreaterThanOrEqual(files.count, 5)
        for relative in files {
            let bytes = try Data(contentsOf: Self.root.appendingPathComponent("stubs").appendingPathComponent(relative))
            let node = try JSONParser.parse(Array(bytes))
            XCTAssertEqual(validator.errors(node), [], relative)
        }
        let result = loader.load()
        XCTAssertEqual(result.problems, [])
        XCTAssertGreaterThanOrEqual(result.stubs.count, 8)
    }

    func testSchemaAndLoaderAgreeOnValidAndInvalidStubs() throws {
        let validator = try schema()
        let cases: [String] = [
            #"{"response": {}}"#,
            #"[]"#,
            #"{"stubs": [{"response": {"status": 201}}], "$schema": "x", "_c": 1}"#,
            #"""
            {"name": "n", "priority": 1, "_note": "x", "request": {"method": ["GET", "HEAD"], "path": \#
            "/a/{id}/**", "host": {"matches": "api\\..*"}, "query": {"_ts": {"present": true}}, "headers": \#
            {"X-A": {"contains": "b", "caseInsensitive": true}}, "body": {"json": {"a": [1]}}}, "response": \#
            {"status": 200, "headers": {"Set-Cookie": ["a=1", "b=2"], "X-N": 5}, "body": {"x": null}, "delay": \#
            {"min": 1, "max": 2}}}
            """#,
            #"""
            {"request": {"body": {"form": {"a": "b"}}}, "response": {"bodyBase64": "AA==", "dribble": {"chunks": \#
            2, "durationMs": 10}}}
            """#,
            // Multipart bodies: fields and files by name.
            #"{"request": {"body": {"multipart": {"fields": {"a": "b", "c": {"present": true}}}}}, "response": {}}"#,
            #"{"request": {"body": {"multipart": {"files": {"f": {}, "g": {"absent": true}}}}}, "response": {}}"#,
            #"""
            {"request": {"body": {"multipart": {"files": {"f": {"filename": {"matches": ".+"}, "contentType": "a/b", \#
            "content": {"contains": "x"}}}}}}, "response": {}}
            """#,
            #"{"request": {"body": {"multipart": {}}}, "response": {}}"#,
            #"{"request": {"body": {"multipart": {"fields": {}}}}, "response": {}}"#,
            #"""
            {"request": {"body": {"multipart": {"files": {"f": {"absent": true, "filename": "x"}}}}}, \#
            "response": {}}
            """#,
            #"{"request": {"body": {"multipart": {"files": {"f": {"name": "x"}}}}}, "response": {}}"#,
            #"{"request": {"body": {"multipart": {"fields": {"a": "b"}}, "caseInsensitive": true}}, "response": {}}"#,
            #"{"request": {"body": {"multipart": {"fields": {"a": "b"}}, "form": {"a": "b"}}}, "response": {}}"#,
            #"{"request": {"body": {"equals": "x", "caseInsensitive": false}}, "response": {"fault": "hang"}}"#,
            #"{"request": {"method": "ANY", "pathPattern": "/x.*"}, "response": {"delay": 5}}"#,
            #"{"request": {"path": "/a", "rawQuery": {"absent": true}}, "response": {}}"#,
            #"{"request": {"rawQuery": "a=1&b=2"}, "response": {}}"#,
            #"{"request": {"rawQuery": 5}, "response": {}}"#,
            #"{"request": {"rawQuery": {"absent": true, "equals": "x"}}, "response": {}}"#,
            #"{"request": {"path": "/u/{id}"}, "response": {"template": true, "body": {"id": "{{request.path.id}}"}}}"#,
            #"""
            {"responses": [{"status": 503}, {"body": "ok"}], "after": "cycle", "scenario": {"name": "s", "when": \#
            "Started", "then": "x"}}
            """#,
            #"""
            {"request": {"path": "/legacy/**"}, "response": {"proxy": {"to": "https://staging.example.com/v2", \#
            "stripPrefix": "/legacy", "headers": {"X-Key": "k"}, "removeHeaders": ["Cookie"], "preserveHost": \#
            true, "timeoutMs": 5000}, "delay": 10}}
            """#,
            #"{"response": {"proxy": {"to": "http://127.0.0.1:8081"}}}"#,
            // JSON body patterns: matchers anywhere, literals otherwise, pointers.
            #"""
            {"request": {"body": {"json": {"title": {"matches": ".+"}, "a": {"contains": "x", "caseInsensitive": \#
            true}, "b": {"equals": {"present": 1}}}}}, "response": {}}
            """#,
            #"""
            {"request": {"body": {"json": {"p": {"present": true}, "q": {"absent": true}, "n": {"greaterThan": 0, \#
            "atMost": 9.5}, "m": {"atLeast": -1}, "l": {"lessThan": 1e3}}}}, "response": {}}
            """#,
            #"""
            {"request": {"body": {"json": [1, "a", null, true, {"x": [{"equals": "y", "caseInsensitive": true}]}, \#
            {"matches": "z", "_c": 1}]}}, "response": {}}
            """#,
            #"{"request": {"body": {"json": {"equals": [1, 2]}}}, "response": {}}"#,
            #"{"request": {"body": {"json": {"user": {"name": {"maches": ".+"}}, "e": {}}}}, "response": {}}"#,
            #"""
            {"request": {"body": {"jsonPointer": {"/user/name": {"matches": "a"}, "/items/0": 3, "": {"present": \#
            true}, "/a~0b~1c": [1]}}}, "response": {}}
            """#,
            #"{"request": {"body": {"jsonEquals": {"matches": 5}}}, "response": {}}"#,
            // Webhooks.
            #"""
            {"request": {"path": "/o/{id}"}, "response": {}, "webhooks": [{"url": \#
            "http://127.0.0.1:9/h/{{request.path.id}}", "template": true, "method": "PUT", "headers": {"X-A": \#
            ["1", "2"]}, "body": {"id": "{{request.path.id}}"}, "delay": {"min": 1, "max": 5}}]}
            """#,
            #"""
            {"response": {}, "webhooks": [{"url": "https://hooks.example.com/x?y=1", "bodyBase64": "AA==", \#
            "delay": 0, "_c": 1}], "_n": 1}
            """#,
            #"{"response": {}, "webhooks": []}"#,
            // Invalid for both:
            #"{"response": {}, "webhooks": [{}]}"#,
            #"{"response": {}, "webhooks": {"url": "http://x/"}}"#,
            #"{"response": {}, "webhooks": [{"url": "ftp://x/"}]}"#,
            #"{"response": {}, "webhooks": [{"url": "http://x/", "body": "a", "bodyBase64": "AA=="}]}"#,
            #"{"response": {}, "webhooks": [{"url": "http://x/", "delay": -1}]}"#,
            #"{"response": {}, "webhooks": [{"url": "http://x/", "headers": {"Bad Name": "x"}}]}"#,
            #"{"response": {}, "webhooks": [{"url": "http://x/", "template": "yes"}]}"#,
            #"{"response": {}, "webhooks": [{"url": "http://x/", "metod": "GET"}]}"#,
            #"{"response": {}, "webhooks": [{"url": "http://x/", "method": ""}]}"#,
            #"{"response": {"proxy": {}}}"#,
            #"{"response": {"proxy": {"to": "ftp://x"}}}"#,
            #"{"response": {"proxy": {"to": "http://x?q=1"}}}"#,
            #"{"response": {"proxy": {"to": "http://x", "stripPrefix": "legacy"}}}"#,
            #"{"response": {"proxy": {"to": "http://x", "timeoutMs": 0}}}"#,
            #"{"response": {"proxy": {"to": "http://x", "removeHeaders": ["a b"]}}}"#,
            #"{"response": {"proxy": {"to": "http://x", "follow": true}}}"#,
            #"{"response": {"proxy": {"to": "http://x"}, "status": 200}}"#,
            #"{"response": {"proxy": {"to": "http://x"}, "body": "b"}}"#,
            #"{"response": {"proxy": {"to": "http://x"}, "fault": "reset"}}"#,
            #"{"response": {}, "responses": [{}]}"#,
            #"{"responses": []}"#,
            #"{"response": {}, "after": "cycle"}"#,
            #"{"responses": [{}], "after": "loop"}"#,
            #"{"response": {}, "scenario": {"when": "x"}}"#,
            #"{"response": {}, "scenario": {"name": "a", "than": "b"}}"#,
            #"{"response": {"template": 1, "body": "x"}}"#,
            #"{}"#,
            #"{"reqeust": {}, "response": {}}"#,
            #"{"response": {"staus": 200}}"#,
            #"{"response": {"status": 99}}"#,
            #"{"response": {"status": 600}}"#,
            #"{"response": {"status": 20.5}}"#,
            #"{"priority": 0, "response": {}}"#,
            #"{"name": 3, "response": {}}"#,
            #"{"request": {"method": "GE T"}, "response": {}}"#,
            #"{"request": {"method": []}, "response": {}}"#,
            #"{"request": {"method": ["ANY"]}, "response": {}}"#,
            #"{"request": {"path": "relative"}, "response": {}}"#,
            #"{"request": {"path": "/a?b"}, "response": {}}"#,
            #"{"request": {"path": "/a", "pathPattern": "/a"}, "response": {}}"#,
            #"{"request": {"query": {"a": {"equals": "x", "contains": "y"}}}, "response": {}}"#,
            #"{"request": {"query": {"a": {"caseInsensitive": true}}}, "response": {}}"#,
            #"{"request": {"query": {"a": {"present": false}}}, "response": {}}"#,
            #"{"request": {"query": {"a": 1}}, "response": {}}"#,
            #"{"request": {"headers": {"Bad Name": "x"}}, "response": {}}"#,
            #"{"request": {"body": "x"}, "response": {}}"#,
            #"{"request": {"body": {}}, "response": {}}"#,
            #"{"request": {"body": {"json": 1, "caseInsensitive": true}}, "response": {}}"#,
            #"{"request": {"body": {"json": 1, "equals": "x"}}, "response": {}}"#,
            #"{"request": {"body": {"json": {"a": {"matches": 5}}}}, "response": {}}"#,
            #"{"request": {"body": {"json": {"a": {"present": false}}}}, "response": {}}"#,
            #"{"request": {"body": {"json": {"a": {"absent": true, "caseInsensitive": true}}}}, "response": {}}"#,
            #"{"request": {"body": {"json": [{"contains": "x", "matches": "y"}]}}, "response": {}}"#,
            #"{"request": {"body": {"json": {"n": {"greaterThan": "1"}}}}, "response": {}}"#,
            #"{"request": {"body": {"json": {"n": {"greaterThan": 1, "atLeast": 2}}}}, "response": {}}"#,
            #"{"request": {"body": {"json": {"n": {"lessThan": 1, "atMost": 2}}}}, "response": {}}"#,
            #"{"request": {"body": {"json": {"n": {"atMost": 1, "equals": 2}}}}, "response": {}}"#,
            #"{"request": {"body": {"json": {"n": {"atMost": 1, "caseInsensitive": true}}}}, "response": {}}"#,
            #"{"request": {"body": {"json": {"n": {"equals": 1, "caseInsensitive": true}}}}, "response": {}}"#,
            #"{"request": {"body": {"json": {"n": {"contains": "x", "caseInsensitive": "yes"}}}}, "response": {}}"#,
            #"{"request": {"body": {"json": {"n": {"caseInsensitive": true}}}}, "response": {}}"#,
            #"{"request": {"body": {"json": {"deep": [[{"matches": null}]]}}}, "response": {}}"#,
            #"{"request": {"body": {"json": {"a": 1}, "caseInsensitive": true}}, "response": {}}"#,
            #"{"request": {"body": {"jsonPointer": {"user/name": 1}}}, "response": {}}"#,
            #"{"request": {"body": {"jsonPointer": {"/a~2": 1}}}, "response": {}}"#,
            #"{"request": {"body": {"jsonPointer": {"/a~": 1}}}, "response": {}}"#,
            #"{"request": {"body": {"jsonPointer": {}}}, "response": {}}"#,
            #"{"request": {"body": {"jsonPointer": ["/a"]}}, "response": {}}"#,
            #"{"request": {"body": {"jsonPointer": {"/a": {"present": 1}}}}, "response": {}}"#,
            #"{"request": {"body": {"jsonPointer": {"/a": 1}, "caseInsensitive": true}}, "response": {}}"#,
            #"{"request": {"body": {"jsonPointer": {"/a": 1}, "json": {}}}, "response": {}}"#,
            #"{"response": {"headers": {"X": true}}}"#,
            #"{"response": {"headers": {"X": [true]}}}"#,
            #"{"response": {"body": "a", "bodyFile": "b"}}"#,
            #"{"response": {"bodyBase64": 1}}"#,
            #"{"response": {"delay": -1}}"#,
            #"{"response": {"delay": {"min": 1}}}"#,
            #"{"response": {"fault": "boom"}}"#,
            #"{"response": {"dribble": {"chunks": 0, "durationMs": 1}}}"#,
            #"{"response": {"fault": "reset", "dribble": {"chunks": 1, "durationMs": 1}}}"#,
            #"{"stubs": {}}"#,
            #"{"stubs": [], "extra": 1}"#,
            #"[1]"#,
            #""stub""#,
        ]
        for json in cases {
            let folder = TemporaryFolder()
            folder.write("s.json", json)
            let loaderAccepts = folder.load().isServable
            let schemaErrors = validator.errors(try JSONParser.parse(json))
            XCTAssertEqual(
                schemaErrors.isEmpty,
                loaderAccepts,
                "\(json): loader \(loaderAccepts ? "accepts" : "rejects"), schema says \(schemaErrors)"
            )
        }
    }
}

/// Just enough JSON Schema 2020-12 for docs/stub.schema.json: $ref into $defs, type, enum,
/// const, properties, patternProperties, additionalProperties, propertyNames, required, dependentRequired,
/// items, minItems, minProperties, minLength, minimum, maximum, pattern, allOf, anyOf, oneOf, not.
struct MiniSchemaValidator {
    let root: JSONNode

    func errors(_ instance: JSONNode) -> [String] {
        var found: [String] = []
        validate(instance, root, "$", &found)
        return found
    }

    private func resolve(_ ref: String) -> JSONNode? {
        guard ref.hasPrefix("#") else { return nil }
        return root.resolve(pointer: String(ref.dropFirst()))
    }

    private func valid(_ instance: JSONNode, _ schema: JSONNode) -> Bool {
        var found: [String] = []
        validate(instance, schema, "$", &found)
        return found.isEmpty
    }

    private func validate(_ instance: JSONNode, _ schema: JSONNode, _ path: String, _ errors: inout [String]) {
        if let b = schema.bool {
            if !b { errors.append("\(path): false schema") }
            return
        }
        guard schema.members != nil else { return }
        if let ref = schema["$ref"]?.string {
            guard let target = resolve(ref) else {
                errors.append("\(path): unresolved \(ref)")
                return
            }
            validate(instance, target, path, &errors)
        }
        if let type = schema["type"] {
            let types = type.elements?.compactMap(\.string) ?? [type.string!]
            if !types.contains(where: { matchesType(instance, $0) }) { errors.append("\(path): not \(types)") }
        }
        if let options = schema["enum"]?.elements, !options.contains(where: { $0.equals(instance) }) {
            errors.append("\(path): not in enum")
        }
        if let c = schema["const"], !c.equals(instance) { errors.append("\(path): not const") }
        if let s = instance.string {
            if let min = schema["minLength"]?.number?.value, Double(s.count) < min {
                errors.append("\(path): too short")
            }
            if let pattern = schema["pattern"]?.string, s.range(of: pattern, options: .regularExpression) == nil {
                errors.append("\(path): does not match \(pattern)")
            }
        }
        if let n = instance.number?.value {
            if let min = schema["minimum"]?.number?.value, n < min { errors.append("\(path): below minimum") }
            if let max = schema["maximum"]?.number?.value, n > max { errors.append("\(path): above maximum") }
        }
        if let elements = instance.elements {
            if let min = schema["minItems"]?.number?.value, Double(elements.count) < min {
                errors.append("\(path): too few items")
            }
            if let items = schema["items"] {
                for (i, e) in elements.enumerated() { validate(e, items, "\(path)[\(i)]", &errors) }
            }
        }
        if let members = instance.members {
            if let min = schema["minProperties"]?.number?.value, Double(members.count) < min {
                errors.append("\(path): too few properties")
            }
            for required in schema["required"]?.elements?.compactMap(\.string) ?? []
            where !members.contains(where: { $0.key == required }) {
                errors.append("\(path): missing \(required)")
            }
            let properties = schema["properties"]?.members ?? []
            let patterns = schema["patternProperties"]?.members ?? []
            for member in members {
                let childPath = "\(path).\(member.key)"
                if let names = schema["propertyNames"] {
                    validate(JSONNode(.string(member.key)), names, childPath, &errors)
                }
                var covered = false
                if let property = properties.first(where: { $0.key == member.key }) {
                    covered = true
                    validate(member.value, property.value, childPath, &errors)
                }
                for pattern in patterns where member.key.range(of: pattern.key, options: .regularExpression) != nil {
                    covered = true
                    validate(member.value, pattern.value, childPath, &errors)
                }
                if !covered, let additional = schema["additionalProperties"] {
                    validate(member.value, additional, childPath, &errors)
                }
            }
        }
        for sub in schema["allOf"]?.elements ?? [] { validate(instance, sub, path, &errors) }
        if let any = schema["anyOf"]?.elements, !any.contains(where: { valid(instance, $0) }) {
            errors.append("\(path): matches none of anyOf")
        }
        if let one = schema["oneOf"]?.elements {
            let count = one.filter { valid(instance, $0) }.count
            if count != 1 { errors.append("\(path): matches \(count) of oneOf") }
        }
        if let not = schema["not"], valid(instance, not) { errors.append("\(path): matches not") }
        if let dependencies = schema["dependentRequired"]?.members, let members = instance.members {
            for dependency in dependencies where members.contains(where: { $0.key == dependency.key }) {
                for required in dependency.value.elements?.compactMap(\.string) ?? []
                where !members.contains(where: { $0.key == required }) {
                    errors.append("\(path): \(dependency.key) needs \(required)")
                }
            }
        }
    }

    private func matchesType(_ instance: JSONNode, _ type: String) -> Bool {
        switch (type, instance.value) {
        case ("object", .object), ("array", .array), ("string", .string), ("boolean", .bool), ("null", .null),
            ("number", .number):
            return true
        case ("integer", .number(let n)):
            return n.value.rounded() == n.value
        default:
            return false
        }
    }
}
