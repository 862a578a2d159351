package inplace

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/clonecore/cloneset/internal/damage"
)

// checkStateFast fails when parseStateFast takes a text that json.Unmarshal
// reads differently or rejects; it returns whether the fast reader took it.
func checkStateFast(t *testing.T, text string) bool {
	t.Helper()
	fast, ok := parseStateFast(text)
	if !ok {
		return false
	}
	want := &State{}
	if err := json.Unmarshal([]byte(text), want); err != nil {
		t.Fatalf("fast reader took %q, json.Unmarshal rejects it: %v", text, err)
	}
	if !reflect.DeepEqual(fast, want) {
		t.Fatalf("%q: fast reader %+v, json.Unmarshal %+v", text, fast, want)
	}
	return true
}

func TestParseStateFastMatchesUnmarshal(t *testing.T) {
	taken := []string{
		`{}`, ` { } `,
		`{"revision":"web-2","updateTimestamp":"2026-01-01T00:00:00Z","lastContainerStatuses":{"main":{"imageID":"docker.io/x@sha256:1"}},"updateImages":true}`,
		`{"revision":"r","updateTimestamp":null,"lastContainerStatuses":{},"updateEnvFromMetadata":false,"updateResources":true}`,
		"{\n \"lastContainerStatuses\" : { \"a\" : { } , \"b\":{\"imageID\":\"\"} },\t\"updateTimestamp\":\"\"\r\n}",
		`{"updateTimestamp":"2026-01-01T10:00:00+02:00","revision":"é"}`,
	}
	for _, s := range taken {
		if !checkStateFast(t, s) {
			t.Errorf("fast reader declined %q", s)
		}
	}
	declined := []string{
		``, `null`, `[]`, `{`, `{"revision":"a","revision":"b"}`, `{"Revision":"a"}`, `{"other":1}`,
		`{"revision":"a\"b"}`, `{"revision":null}`, `{"updateImages":null}`, `{"updateTimestamp":"yesterday"}`,
		`{"lastContainerStatuses":null}`, `{"lastContainerStatuses":{"a":{"imageID":"x","other":1}}}`,
		`{"lastContainerStatuses":{"a":{},"a":{}}}`, `{"revision":"a",}`, `{"revision":"a"} x`, "{\"revision\":\"\xff\"}",
		`{"nextContainerImages":{"a":"b"}}`,
	}
	for _, s := range declined {
		if checkStateFast(t, s) {
			t.Errorf("fast reader took %q", s)
		}
	}
	// Random damage: whatever the fast reader takes, json.Unmarshal reads alike.
	base := taken[2]
	r := rand.New(rand.NewPCG(3, 4))
	const alphabet = `{}[],:"\ nulltruefalse0123456789-TZ`
	for i := 0; i < 5000; i++ {
		checkStateFast(t, string(damage.Bytes(r, []byte(base), 1+r.IntN(2), alphabet)))
	}
}
