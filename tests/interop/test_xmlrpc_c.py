"""xmlrpc-c both ways: its `xmlrpc` command (Debian's xmlrpc-api-utils) against `callwire serve`,
and `callwire call` / `callwire list` against xmlrpc-c's C++ Abyss server
(tests/interop/xmlrpc_c_server.cpp), in both of its dialects."""

import json
import shutil
import urllib.parse

import pytest

from conftest import ServerProcess, run


@pytest.fixture(scope="session")
def xmlrpc_bin():
    path = shutil.which("xmlrpc")
    if path is None:
        pytest.fail("xmlrpc-c's `xmlrpc` program is missing (scripts/setup.sh installs "
                    "xmlrpc-api-utils)")
    return path


def xmlrpc_c_call(xmlrpc_bin, url, method, *params, flags=()):
    return run([xmlrpc_bin, *flags, url, method, *params])


# --- xmlrpc-c's client against our server --------------------------------------------------------


def test_xmlrpc_sample_add(xmlrpc_bin, server):
    result = xmlrpc_c_call(xmlrpc_bin, server.url, "sample.add", "i/3", "i/5")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "Integer: 8"


def test_xmlrpc_i8(xmlrpc_bin, server):
    result = xmlrpc_c_call(xmlrpc_bin, server.url, "sample.add", "I/3000000000", "I/1")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "64-bit integer: 3000000001"


def test_xmlrpc_echo_types(xmlrpc_bin, server):
    result = xmlrpc_c_call(xmlrpc_bin, server.url, "echo", "n/", "I/-5", "d/1.5", "b/t",
                           "s/text", "i/7")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Array of 6 items:" in out
    for item in ("Index  0 Nil", "Index  1 64-bit integer: -5", "Index  2 Floating Point: 1.5",
                 "Index  3 Boolean: TRUE", "Index  4 String: 'text'", "Index  5 Integer: 7"):
        assert item in out, out


def test_xmlrpc_base64(xmlrpc_bin, server):
    result = xmlrpc_c_call(xmlrpc_bin, server.url, "echo", "h/00ff10")
    assert result.returncode == 0, result.stderr
    assert "Bit string: 00ff10" in result.stdout


def test_xmlrpc_fault_unknown_method(xmlrpc_bin, server):
    result = xmlrpc_c_call(xmlrpc_bin, server.url, "no.such", "i/1")
    assert result.returncode != 0
    assert "unknown method 'no.such'" in result.stderr
    assert "(XML-RPC fault code -32601)" in result.stderr


def test_xmlrpc_fault_wrong_params(xmlrpc_bin, server):
    result = xmlrpc_c_call(xmlrpc_bin, server.url, "sample.add", "s/x", "i/1")
    assert result.returncode != 0
    assert "(XML-RPC fault code -32602)" in result.stderr


def test_xmlrpc_introspection(xmlrpc_bin, server):
    result = xmlrpc_c_call(xmlrpc_bin, server.url, "system.listMethods")
    assert result.returncode == 0, result.stderr
    for name in ("sample.add", "validator1.nestedStructTest", "echo", "system.listMethods",
                 "system.multicall"):
        assert f"String: '{name}'" in result.stdout
    result = xmlrpc_c_call(xmlrpc_bin, server.url, "system.methodHelp", "sample.add")
    assert result.returncode == 0, result.stderr
    assert "Adds two integers" in result.stdout
    result = xmlrpc_c_call(xmlrpc_bin, server.url, "system.methodExist", "s/sample.add")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "Boolean: TRUE"


def test_xmlrpc_basic_auth(xmlrpc_bin, serve):
    server = serve("--listen", "127.0.0.1:0", "--user", "u", "--password", "pw")
    result = xmlrpc_c_call(xmlrpc_bin, server.url, "sample.add", "i/1", "i/2",
                           flags=("-username", "u", "-password", "pw"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "Integer: 3"
    result = xmlrpc_c_call(xmlrpc_bin, server.url, "sample.add", "i/1", "i/2")
    assert result.returncode != 0
    assert "401" in result.stderr


def test_xmlrpc_reads_the_apache_dialect(xmlrpc_bin, serve):
    server = serve("--listen", "127.0.0.1:0", "--dialect", "apache")
    result = xmlrpc_c_call(xmlrpc_bin, server.url, "echo", "n/", "I/9000000000")
    assert result.returncode == 0, result.stderr
    assert "Index  0 Nil" in result.stdout
    assert "Index  1 64-bit integer: 9000000000" in result.stdout


# --- our client against xmlrpc-c's Abyss server --------------------------------------------------


def abyss(xmlrpc_c_server_bin, *flags):
    server = ServerProcess([xmlrpc_c_server_bin, *flags])
    parts = urllib.parse.urlsplit(server.url)
    assert parts.hostname == "127.0.0.1" and parts.port > 0
    return server


@pytest.fixture(scope="module", params=["i8", "apache"])
def abyss_server(request, xmlrpc_c_server_bin):
    server = abyss(xmlrpc_c_server_bin, *(["--apache"] if request.param == "apache" else []))
    yield server
    assert server.stop() == 0


def call(callwire_bin, url, method, *params, flags=()):
    return run([callwire_bin, "call", "--timeout", "10", *flags, url, method, *params])


def call_ok(callwire_bin, url, method, *params, flags=()):
    result = call(callwire_bin, url, method, *params, flags=flags)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_callwire_sample_add(callwire_bin, abyss_server):
    result = call(callwire_bin, abyss_server.url, "sample.add", "i/2", "i/3")
    assert (result.returncode, result.stdout, result.stderr) == (0, "5\n", "")


def test_callwire_i8_and_nil(callwire_bin, abyss_server):
    # In the apache variant the answer holds <ex:i8> and <ex:nil/>.
    assert call_ok(callwire_bin, abyss_server.url, "echo", "I/5000000000", "I/-1", "n/") == [
        {"$i8": 5000000000}, {"$i8": -1}, None]


def test_callwire_sends_the_apache_dialect(callwire_bin, abyss_server):
    assert call_ok(callwire_bin, abyss_server.url, "echo", "I/5", "n/",
                   flags=("--dialect", "apache")) == [{"$i8": 5}, None]


def test_callwire_every_type(callwire_bin, abyss_server):
    answer = call_ok(callwire_bin, abyss_server.url, "echo", "s/x", "d/1.5", "h/00ff", "b/t",
                     "t/19980717T14:08:55", "t/20240229T23:59:58.250",
                     "array/(i/1,array/())", "struct/{a:i/1,b:struct/{}}", "s/grüße <&>")
    assert answer == ["x", 1.5, {"$base64": "AP8="}, True,
                      {"$dateTime": "19980717T14:08:55"},
                      # xmlrpc-c writes fractional seconds with six digits
                      {"$dateTime": "20240229T23:59:58.250000"},
                      [1, []], {"a": 1, "b": {}}, "grüße <&>"]


def test_callwire_multicall(callwire_bin, abyss_server):
    calls = ("array/(struct/{methodName:s/sample.add,params:array/(i/1,i/2)},"
             "struct/{methodName:s/sample.fault,params:array/()})")
    assert call_ok(callwire_bin, abyss_server.url, "system.multicall", calls) == [
        [3], {"faultCode": 42, "faultString": "the fault you asked for"}]


def test_callwire_fault(callwire_bin, abyss_server):
    result = call(callwire_bin, abyss_server.url, "sample.fault")
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == "fault 42: the fault you asked for\n"
    result = call(callwire_bin, abyss_server.url, "no.such")
    assert result.returncode == 1
    assert result.stderr == "fault -506: Method 'no.such' not defined\n"
    result = call(callwire_bin, abyss_server.url, "sample.add", "s/x", "i/1")
    assert result.returncode == 1
    assert result.stderr.startswith("fault -501: ")


def test_callwire_list(callwire_bin, abyss_server):
    result = run([callwire_bin, "list", "--timeout", "10", abyss_server.url])
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "sample.add(int, int) -> int" in lines
    assert lines[lines.index("sample.add(int, int) -> int") + 1] == "    Adds two 32-bit integers."
    assert "echo(...)" in lines  # signature "?": unknown
    assert "sample.fault() -> int" in lines
    assert "system.listMethods() -> array" in lines
    assert "system.multicall(array) -> array" in lines
