"""Go's kolo/xmlrpc (Debian's golang-github-kolo-xmlrpc-dev, installed by scripts/setup.sh)
against `callwire serve`: tests/interop/kolo_client.go, built here with Debian's Go from
/usr/share/gocode, calls sample.add, validator1.manyTypesTest with every scalar type (bytes
both non-empty and empty) and validator1.echoStructTest with empty bytes in a struct.

kolo reads an empty <base64></base64> as nil, so callwire writes no bytes as Python does,
<base64>\\n</base64>, which kolo reads as the (empty) base64 text."""

import os
import shutil

import pytest

from conftest import REPO, run

BUILD_TIMEOUT = 240.0  # a cold Go build of net/http takes about 15 s on two cores


@pytest.fixture(scope="module")
def kolo_client(tmp_path_factory):
    go = shutil.which("go")
    if go is None:
        pytest.fail("go is missing (scripts/setup.sh installs golang-go)")
    out = tmp_path_factory.mktemp("kolo") / "kolo_client"
    env = dict(os.environ, GOPATH="/usr/share/gocode", GO111MODULE="off", GOFLAGS="",
               GOCACHE=str(out.parent / "cache"))
    built = run([go, "build", "-o", str(out), str(REPO / "tests" / "interop" / "kolo_client.go")],
                timeout=BUILD_TIMEOUT, env=env)
    assert built.returncode == 0, ("cannot build kolo_client (scripts/setup.sh installs "
                                   "golang-github-kolo-xmlrpc-dev): " + built.stderr)
    return str(out)


def test_kolo_client_against_callwire_serve(kolo_client, server):
    result = run([kolo_client, server.url])
    assert (result.returncode, result.stdout, result.stderr) == (0, "ok\n", "")
