public enum StubServerVersion {
    public static let current = "0.1.0"
}

enum Usage {
    static let text = """
    stubserver \(StubServerVersion.current): a mock HTTP server for client teams

    Usage:
      stubserver [--dir DIR] [--port N] [--host ADDR] [options]   serve the stubs in DIR
      stubserver validate [--dir DIR]                             check every stub file, print all errors
      stubserver --help | --version

    Options:
      --dir DIR              folder of stub files (default: stubs)
      --port N               port to listen on; 0 picks a free port (default: 8080)
      --host ADDR            address to listen on (default: 127.0.0.1; 0.0.0.0 for devices on your LAN)
      --port-file PATH       write the bound port to PATH once listening (for scripts)
      --no-watch             do not reload when stub files change (reloading is on by default)
      --log text|json|quiet  one line per request as text (default), JSON, or nothing
      --verbose              also log request bodies of unmatched requests
      --cors                 answer CORS preflights and add CORS headers (for web apps on another origin)
      --delay MS             extra milliseconds before every response
      --journal N            requests kept for the admin API's journal (default: 1000; 0 turns it off)
      --admin-token T        admin API requests need Authorization: Bearer T
      --max-body SIZE        largest request body (default: 32M)
      --max-header SIZE      largest request header section (default: 64K)
      --max-target SIZE      longest request target (default: 8K)
      --header-timeout S     seconds a client has to send its request headers (default: 10)
      --idle-timeout S       seconds an idle keep-alive connection stays open (default: 60)
      --max-connections N    open connections at most (default: 4096)
      -h, --help             show this help
      --version              show the version

    Flags take their value as --flag value or --flag=value.
    Exit status: 0 normal stop, 1 runtime failure or invalid stubs, 2 bad usage.
    Stub format: docs/stub-format.md. Command line: docs/cli.md.
    """
}
