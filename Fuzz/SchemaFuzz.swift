// libFuzzer target for the JSON Schema validator and the sampler. Not part of the package:
// scripts/fuzz builds the package's modules with coverage and links this file against them.
//
// Each input is read as YAML (JSON is YAML). An object with "schema" (and optionally
// "instance") gives both; anything else is a schema. In both dialects (OpenAPI 3.0, 2020-12):
//  1. validating and sampling never trap, whatever the schema (self-references, absurd bounds,
//     invalid patterns, deep nesting);
//  2. both are deterministic: the same failures and the same sample twice;
//  3. every failure names a JSON path starting at "$" and a message;
//  4. a sample serialises to JSON that JSONParser reads back equal (no `inf`, no `nan`);
//  5. a value that validates still validates after a trip through JSON text;
//  6. `acceptsText` (a JSON text checked as it is read, no tree) accepts only what parses and
//     validates: the instance's and the sample's JSON text, each as written and as bytes a
//     client could send (the instance's text with a byte changed).
// A violated invariant is a precondition failure, which libFuzzer reports and saves as a crash.
import JSON
import JSONSchema
import YAML

private func check(_ failures: [SchemaFailure]) {
    for failure in failures {
        precondition(failure.instancePath.hasPrefix("$"), "a failure path \(failure.instancePath) not from $")
        precondition(!failure.message.isEmpty, "a failure without a message")
    }
}

/// Invariant 6: what the text check accepts, the parser reads and the validator passes.
private func checkText(_ text: [UInt8], _ validator: SchemaValidator, _ schema: LocatedNode) {
    let compiled = validator.compile(schema)
    guard validator.acceptsText(text, against: compiled, limits: .requestBody) else { return }
    guard let parsed = try? JSONParser.parse(text, limits: .requestBody) else {
        preconditionFailure("acceptsText accepted text the parser refuses: \(String(decoding: text, as: UTF8.self))")
    }
    precondition(validator.isValid(parsed, against: compiled), "acceptsText accepted an invalid value")
}

private func fuzzSchema(_ input: [UInt8]) {
    guard let root = try? YAMLReader.parse(input) else { return }
    let documents = DocumentSet(root: root, displayName: "fuzz.yaml", path: nil)
    let schema = documents.root["schema"] ?? documents.root
    let instance = root["schema"] != nil ? root["instance"] : nil
    for dialect in [SchemaDialect.openAPI30, .jsonSchema2020] {
        let validator = SchemaValidator(documents: documents, dialect: dialect)
        if let instance {
            let failures = validator.validate(instance, against: schema)
            check(failures)
            precondition(validator.validate(instance, against: schema) == failures, "validation is not deterministic")
            if failures.isEmpty, let back = try? JSONParser.parse(JSONSerializer.bytes(instance)) {
                precondition(validator.isValid(back, against: schema), "a valid value fails after a trip through JSON")
            }
            var text = JSONSerializer.bytes(instance)
            checkText(text, validator, schema)
            if !text.isEmpty {
                let at = input.count % text.count
                text[at] = input.last ?? 0
                checkText(text, validator, schema)
            }
        }
        let sampler = SchemaSampler(documents: documents, dialect: dialect)
        let sample = sampler.sample(schema)
        let text = JSONSerializer.bytes(sample)
        guard let back = try? JSONParser.parse(text) else {
            preconditionFailure("the sample is not JSON: \(String(decoding: text, as: UTF8.self))")
        }
        precondition(back.equals(sample), "the sample reads back differently")
        precondition(JSONSerializer.bytes(sampler.sample(schema)) == text, "sampling is not deterministic")
        check(validator.validate(sample, against: schema))
        checkText(text, validator, schema)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = size == 0 || data == nil ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    fuzzSchema(input)
    return 0
}
