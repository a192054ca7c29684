// A Go client on kolo/xmlrpc (Debian's golang-github-kolo-xmlrpc-dev) against a callwire server
// (tests/interop/test_kolo.py builds and runs it): sample.add, a struct, every scalar type
// through validator1.manyTypesTest, and empty bytes, which this library reads as nil when the
// element is empty (<base64></base64>). Prints "ok" and exits 0, or names the first failure
// and exits 1.
//
//	kolo_client URL
package main

import (
	"encoding/base64"
	"fmt"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/kolo/xmlrpc"
)

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "kolo_client: "+format+"\n", args...)
	os.Exit(1)
}

// decoded is the bytes of a base64 value as this library hands it over: its text, as a string.
func decoded(v interface{}, what string) []byte {
	text, ok := v.(string)
	if !ok {
		fail("%s: base64 arrived as %T (%v), not as its text", what, v, v)
	}
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(text))
	if err != nil {
		fail("%s: %q is not base64: %v", what, text, err)
	}
	return b
}

func main() {
	if len(os.Args) != 2 {
		fail("usage: kolo_client URL")
	}
	client, err := xmlrpc.NewClient(os.Args[1], nil)
	if err != nil {
		fail("%v", err)
	}
	defer client.Close()

	var sum int
	if err := client.Call("sample.add", []interface{}{5, 3}, &sum); err != nil || sum != 8 {
		fail("sample.add: %d, %v", sum, err)
	}

	when := time.Date(2024, 2, 29, 23, 59, 58, 0, time.UTC)
	for _, payload := range [][]byte{{0, 1, 2, 0xff}, {}} {
		var echoed []interface{}
		args := []interface{}{7, true, "grüße <&>", 2.5, when,
			xmlrpc.Base64(base64.StdEncoding.EncodeToString(payload))}
		if err := client.Call("validator1.manyTypesTest", args, &echoed); err != nil {
			fail("manyTypesTest: %v", err)
		}
		if len(echoed) != 6 {
			fail("manyTypesTest: %d values back", len(echoed))
		}
		if echoed[0] != int64(7) || echoed[1] != true || echoed[2] != "grüße <&>" ||
			echoed[3] != 2.5 {
			fail("manyTypesTest: %#v", echoed[:4])
		}
		if t, ok := echoed[4].(time.Time); !ok || !t.Equal(when) {
			fail("manyTypesTest: the time came back as %#v", echoed[4])
		}
		what := fmt.Sprintf("manyTypesTest's %d bytes", len(payload))
		if got := decoded(echoed[5], what); !reflect.DeepEqual(got, payload) {
			fail("%s: came back as %v", what, got)
		}
	}

	var echoedStruct map[string]interface{}
	in := map[string]interface{}{"name": "kolo", "n": 3, "empty": xmlrpc.Base64("")}
	if err := client.Call("validator1.echoStructTest", []interface{}{in}, &echoedStruct); err != nil {
		fail("echoStructTest: %v", err)
	}
	if echoedStruct["name"] != "kolo" || echoedStruct["n"] != int64(3) {
		fail("echoStructTest: %#v", echoedStruct)
	}
	if got := decoded(echoedStruct["empty"], "echoStructTest's empty bytes"); len(got) != 0 {
		fail("echoStructTest: empty bytes came back as %v", got)
	}
	fmt.Println("ok")
}
