"""callwire's packet-stream client against xmlrpc-c's C++ pstream server (serverPstreamConn over
each accepted socket, tests/interop/xmlrpc_c_pstream_server.cpp): `callwire call pstream://...`,
callwire's Client through one connection (callwire_pstream_calls.cpp: sample.add, a fault, a
4 MiB base64 value full of 0x1B bytes, 50 calls; no async calls: the async engine has
connections of its own and xmlrpc-c serves one connection at a time), and the pstream client
examples in C and C++. xmlrpc-c 1.33 writes a 0x1B payload byte unescaped (fixed in
1.39.03): no XML text here holds one; base64 carries those bytes."""

import os

import pytest

from conftest import REPO, ServerProcess, run


def _optional_program(variable, default, why):
    path = os.environ.get(variable) or str(REPO / default)
    if not os.access(path, os.X_OK):
        if os.environ.get(variable):
            pytest.fail(f"{variable}={path} is not an executable")
        pytest.skip(why)
    return path


@pytest.fixture(scope="module")
def xmlrpc_c_pstream_server():
    path = _optional_program("XMLRPC_C_PSTREAM_SERVER",
                             "build/release/tests/interop/xmlrpc_c_pstream_server",
                             "xmlrpc_c_pstream_server not built (no libxmlrpc_server_pstream++)")
    server = ServerProcess([path])
    assert server.url.startswith("pstream://127.0.0.1:"), server.url
    yield server
    assert server.stop() == 0, server.stderr()


@pytest.fixture(scope="module")
def calls_bin():
    return _optional_program("CALLWIRE_PSTREAM_CALLS",
                             "build/release/tests/interop/callwire_pstream_calls",
                             "callwire_pstream_calls not built")


def callwire_call(callwire_bin, url, *args):
    return run([callwire_bin, "call", "--timeout", "10", url, *args])


def connections(callwire_bin, url):
    result = callwire_call(callwire_bin, url, "connections")
    assert result.returncode == 0, result.stderr
    return int(result.stdout)


def test_callwire_call(callwire_bin, xmlrpc_c_pstream_server):
    url = xmlrpc_c_pstream_server.url
    result = callwire_call(callwire_bin, url, "sample.add", "i/2", "i/3")
    assert (result.returncode, result.stdout, result.stderr) == (0, "5\n", "")
    result = callwire_call(callwire_bin, url, "sample.fault")
    assert result.returncode != 0
    assert "42" in result.stderr and "the fault you asked for" in result.stderr, result.stderr
    result = callwire_call(callwire_bin, url, "echo", "s/héllo <&> wörld")
    assert (result.returncode, result.stdout) == (0, '["héllo <&> wörld"]\n'), result.stderr
    assert xmlrpc_c_pstream_server.alive()


def test_client_steps_on_one_connection(callwire_bin, calls_bin, xmlrpc_c_pstream_server):
    url = xmlrpc_c_pstream_server.url
    before = connections(callwire_bin, url)
    result = run([calls_bin, url], timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "add 8",
        "fault 42 the fault you asked for",
        "echo base64 identical 4194304 bytes 1409025 ESC",
        "sequential 50 of 50",
        f"connections {before + 1}",  # every step on one connection
    ], result.stderr


@pytest.mark.parametrize("language", ["c", "cpp"])
def test_pstream_client_example(language, xmlrpc_c_pstream_server):
    variable = f"PSTREAM_CLIENT_{language.upper()}"
    default = f"build/release/examples/{language}/pstream_client"
    path = _optional_program(variable, default, "the examples are not built")
    result = run([path, xmlrpc_c_pstream_server.url])
    assert (result.returncode, result.stdout) == (0, "12\n"), result.stderr
