import JSON

/// Parses JSON text in a test.
func json(_ text: String) -> JSONNode {
    try! JSONParser.parse(text)
}
