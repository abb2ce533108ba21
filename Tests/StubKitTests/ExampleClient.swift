import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A small networking layer like the ones client teams write: what the stubs are for. The tests
/// run it against the in-process server and against the URLProtocol transport.
struct ExampleClient: Sendable {
    enum Failure: Error, Equatable {
        case usernameAlreadyExists
        case invalidCredentials
        case unknownLocation
        case malformedResponse
        case network(URLError.Code)
        case unexpectedStatus(Int)
    }

    struct Token: Decodable, Equatable {
        let access_token: String
        let token_type: String
    }
    struct Forecast: Decodable, Equatable {
        let location: String
        let days: [Day]
    }
    struct Day: Decodable, Equatable {
        let date: String
        let summary: String
    }
    private struct APIError: Decodable { let error_code: String }

    let baseURL: URL
    let session: URLSession

    func register(username: String, password: String) async throws(Failure) {
        let (status, data) = try await send("POST", "v1/register", json: ["username": username, "password": password])
        switch status {
        case 201: return
        case 409 where (try? JSONDecoder().decode(APIError.self, from: data))?.error_code == "E001":
            throw .usernameAlreadyExists
        default: throw .unexpectedStatus(status)
        }
    }

    func login(username: String, password: String) async throws(Failure) -> Token {
        let (status, data) = try await send(
            "POST",
            "oauth/token",
            json: ["grant_type": "password", "username": username, "password": password]
        )
        switch status {
        case 200: return try decode(Token.self, data)
        case 401: throw .invalidCredentials
        default: throw .unexpectedStatus(status)
        }
    }

    /// A GET whose answer does not matter, for the network's failures: the status, or the failure.
    func ping(_ path: String, timeout: TimeInterval = 5) async throws(Failure) -> Int {
        var request = URLRequest(url: baseURL.appendingPathComponent(path))
        // Set, not passed to the initializer: swift-corelibs-foundation ignores an initializer's
        // timeout and uses the session's (docs/testing.md, "Timeouts").
        request.timeoutInterval = timeout
        request.setValue("ios-app", forHTTPHeaderField: "X-Client-Id")
        return try await perform(request).0
    }

    func forecast(location: String) async throws(Failure) -> Forecast {
        var components = URLComponents(
            url: baseURL.appendingPathComponent("v1/weather/forecast"),
            resolvingAgainstBaseURL: false
        )!
        components.queryItems = [URLQueryItem(name: "location", value: location)]
        let (status, data) = try await send("GET", url: components.url!, json: nil)
        switch status {
        case 200: return try decode(Forecast.self, data)
        case 400: throw .unknownLocation
        default: throw .unexpectedStatus(status)
        }
    }

    private func decode<T: Decodable>(_ type: T.Type, _ data: Data) throws(Failure) -> T {
        do { return try JSONDecoder().decode(T.self, from: data) } catch { throw .malformedResponse }
    }

    private func send(_ method: String, _ path: String, json: [String: String]?) async throws(Failure) -> (Int, Data) {
        try await send(method, url: baseURL.appendingPathComponent(path), json: json)
    }

    private func send(_ method: String, url: URL, json: [String: String]?) async throws(Failure) -> (Int, Data) {
        var request = URLRequest(url: url)
        request.timeoutInterval = 5
        request.httpMethod = method
        request.setValue("ios-app", forHTTPHeaderField: "X-Client-Id")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let json {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try? JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])
        }
        return try await perform(request)
    }

    private func perform(_ request: URLRequest) async throws(Failure) -> (Int, Data) {
        let result: Result<(Int, Data), Failure> = await withCheckedContinuation { continuation in
            session.dataTask(with: request) { data, response, error in
                if let http = response as? HTTPURLResponse {
                    continuation.resume(returning: .success((http.statusCode, data ?? Data())))
                } else {
                    continuation.resume(returning: .failure(.network((error as? URLError)?.code ?? .unknown)))
                }
            }.resume()
        }
        return try result.get()
    }
}
