// Generated from mi_test_server.py by gen_script.sh: edit the Python file, then run the script.
// The script is embedded (SwiftPM would warn about a .py file in a test target) and written
// to each test's temporary folder by TestServer.

/// The Python 3 source of the test stand-in for mi-server.
enum TestServerScript {
    static let source = #"""
