package model

import (
	"math"
	"strings"
	"testing"
)

func TestScaledValueK8s(t *testing.T) {
	cases := []struct {
		v       IntOrPercent
		total   int
		up      bool
		want    int
		wantErr bool
	}{
		{FromInt(3), 7, true, 3, false},
		{FromInt(-2), 7, true, -2, false},
		{FromString("20%"), 7, true, 2, false},
		{FromString("20%"), 7, false, 1, false},
		{FromString("30"), 7, true, 3, false},   // no '%': still a percentage
		{FromString("3.5%"), 7, true, 0, true},  // parse error: controller uses 0
		{FromString("12.5%"), 8, true, 0, true}, // decimal rejected by parser L
		{FromString("%%50"), 10, true, 5, false},
		{FromString("abc"), 10, true, 0, true},
	}
	for _, c := range cases {
		got, err := c.v.ScaledValueK8s(c.total, c.up)
		if got != c.want || (err != nil) != c.wantErr {
			t.Errorf("%v of %d (up=%v) = %d, %v; want %d, err=%v", c.v, c.total, c.up, got, err, c.want, c.wantErr)
		}
	}
}

func TestScaledValueKruise(t *testing.T) {
	cases := []struct {
		v       IntOrPercent
		total   int
		want    int
		wantErr bool
	}{
		{FromString("14.3%"), 7, 2, false}, // 1.001 -> ceil 2 (IEEE double)
		{FromString("50%"), 7, 4, false},
		{FromString("95%"), 7, 7, false},
		{FromString("150%"), 7, 11, false},
		{FromString("7"), 7, 0, true}, // not a percentage
		{FromString("x%"), 7, 0, true},
		{FromInt(9), 7, 9, false},
		{FromString("NaN%"), 7, math.MinInt64, false},
	}
	for _, c := range cases {
		got, err := c.v.ScaledValueKruise(c.total, true)
		if got != c.want || (err != nil) != c.wantErr {
			t.Errorf("%v of %d = %d, %v; want %d, err=%v", c.v, c.total, got, err, c.want, c.wantErr)
		}
	}
}

func TestShortHashAndRevisionMatches(t *testing.T) {
	for in, want := range map[string]string{"web-7c5d8b9f4": "7c5d8b9f4", "my-app-web-7c5d8b9f4": "7c5d8b9f4", "7c5d8b9f4": "7c5d8b9f4", "web-": "", "": ""} {
		if got := ShortHash(in); got != want {
			t.Errorf("ShortHash(%q) = %q, want %q", in, got, want)
		}
	}
	if !RevisionMatches("58f9c7bd4", "web-58f9c7bd4") || !RevisionMatches("api-58f9c7bd4", "web-58f9c7bd4") {
		t.Error("short and foreign-prefix forms must match (upstream EqualToRevisionHash)")
	}
	if RevisionMatches("", "web-58f9c7bd4") || RevisionMatches("web-7777", "web-58f9c7bd4") {
		t.Error("absent or unknown labels must not match")
	}
}

func TestTemplateHashStableAndShaped(t *testing.T) {
	a := PodTemplate{Raw: map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "x"}, "creationTimestamp": nil}, "$patch": "replace",
		"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "resources": map[string]any{"limits": map[string]any{"cpu": "1000m"}}}}}}}
	b := PodTemplate{Raw: map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "x"}},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "resources": map[string]any{"limits": map[string]any{"cpu": "1"}}, "x-unknown": 1}}}}}
	if !TemplatesEqual(a, b) {
		t.Fatal("members the API types write anyway, unknown members, $patch and a quantity's spelling must not change equality")
	}
	da, errA := RevisionData(a)
	db, errB := RevisionData(b)
	if errA != nil || errB != nil || TemplateHash(da, 0) != TemplateHash(db, 0) {
		t.Fatalf("equal templates must hash equally (%v, %v)", errA, errB)
	}
	c := a.DeepCopy()
	c.Raw["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["image"] = "x"
	if TemplatesEqual(a, c) {
		t.Fatal("an image makes another revision")
	}
	h := TemplateHash(da, 0)
	for _, c := range h {
		if !containsRune(hashDigits, c) {
			t.Fatalf("hash %q uses a character outside %q", h, hashDigits)
		}
	}
	if TemplateHash(da, 1) == h {
		t.Fatal("collision count must change the hash")
	}
}

// TestTemplateHashIsUpstreams: the hash of upstream's revision data is
// upstream's hash label (testdata/conformance-revnames, worlds 0000 and 0001).
func TestTemplateHashIsUpstreams(t *testing.T) {
	for _, c := range []struct{ data, hash string }{
		{`{"spec":{"template":{"$patch":"replace","metadata":{"creationTimestamp":null,"labels":{"app":"web"}},"spec":{"containers":[{"image":"redis:7-alpine","imagePullPolicy":"Always","name":"app0","ports":[{"containerPort":8080,"name":"http"}],"readinessProbe":{"httpGet":{"path":"/ready","port":"http"},"initialDelaySeconds":1},"resources":{},"securityContext":{"readOnlyRootFilesystem":true,"runAsUser":1000}}],"hostname":"h","tolerations":[{"operator":"Exists"}]}}}}`, "77f96ff55c"},
	} {
		if got := TemplateHash([]byte(c.data), 0); got != c.hash {
			t.Errorf("TemplateHash = %s, want upstream's %s", got, c.hash)
		}
	}
	if got := RevisionName(strings.Repeat("n", 230), "h"); got != strings.Repeat("n", 223)+"-h" {
		t.Errorf("RevisionName keeps %d characters of the name, want 223", len(got)-2)
	}
}

func containsRune(s string, r rune) bool {
	for _, c := range s {
		if c == r {
			return true
		}
	}
	return false
}
