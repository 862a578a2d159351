package admission

import (
	"strings"
	"testing"
)

// TestDefaultRules: the CloneSet defaults of each version, one rule per
// case (docs/spec/admission-and-conversion.md 1).
func TestDefaultRules(t *testing.T) {
	for _, c := range []struct {
		name    string
		version Version
		spec    string
		path    []string
		want    any
	}{
		{"replicas 1", V1alpha1, ``, []string{"spec", "replicas"}, "1"},
		{"replicas kept, 0 included", V1beta1, `"replicas":0`, []string{"spec", "replicas"}, "0"},
		{"revisionHistoryLimit 10", V1beta1, ``, []string{"spec", "revisionHistoryLimit"}, "10"},
		{"v1alpha1 type ReCreate", V1alpha1, ``, []string{"spec", "updateStrategy", "type"}, "ReCreate"},
		{"v1alpha1 empty type ReCreate", V1alpha1, `"updateStrategy":{"type":""}`, []string{"spec", "updateStrategy", "type"}, "ReCreate"},
		{"v1alpha1 unknown type kept", V1alpha1, `"updateStrategy":{"type":"Rolling"}`, []string{"spec", "updateStrategy", "type"}, "Rolling"},
		{"v1alpha1 partition 0", V1alpha1, ``, []string{"spec", "updateStrategy", "partition"}, "0"},
		{"v1alpha1 maxUnavailable 20%", V1alpha1, ``, []string{"spec", "updateStrategy", "maxUnavailable"}, "20%"},
		{"v1alpha1 maxSurge 0", V1alpha1, ``, []string{"spec", "updateStrategy", "maxSurge"}, "0"},
		{"v1alpha1 OnDelete gets the budget too", V1alpha1, `"updateStrategy":{"type":"OnDelete"}`, []string{"spec", "updateStrategy", "maxUnavailable"}, "20%"},
		{"v1alpha1 in-place strategy for InPlaceIfPossible", V1alpha1, `"updateStrategy":{"type":"InPlaceIfPossible"}`, []string{"spec", "updateStrategy", "inPlaceUpdateStrategy"}, map[string]any{}},
		{"v1alpha1 no in-place strategy for ReCreate", V1alpha1, `"updateStrategy":{"type":"ReCreate"}`, []string{"spec", "updateStrategy", "inPlaceUpdateStrategy"}, nil},
		{"v1alpha1 no disablePVCReuse", V1alpha1, ``, []string{"spec", "scaleStrategy"}, map[string]any{}},
		{"v1beta1 type RollingUpdate", V1beta1, ``, []string{"spec", "updateStrategy", "type"}, "RollingUpdate"},
		{"v1beta1 podUpdatePolicy ReCreate", V1beta1, ``, []string{"spec", "updateStrategy", "rollingUpdate", "podUpdatePolicy"}, "ReCreate"},
		{"v1beta1 maxUnavailable 20%", V1beta1, `"updateStrategy":{"rollingUpdate":{"partition":"10%"}}`, []string{"spec", "updateStrategy", "rollingUpdate", "maxUnavailable"}, "20%"},
		{"v1beta1 partition kept", V1beta1, `"updateStrategy":{"rollingUpdate":{"partition":"10%"}}`, []string{"spec", "updateStrategy", "rollingUpdate", "partition"}, "10%"},
		{"v1beta1 in-place strategy for InPlaceOnly", V1beta1, `"updateStrategy":{"rollingUpdate":{"podUpdatePolicy":"InPlaceOnly"}}`, []string{"spec", "updateStrategy", "rollingUpdate", "inPlaceUpdateStrategy"}, map[string]any{}},
		{"v1beta1 OnDelete gets no rollingUpdate", V1beta1, `"updateStrategy":{"type":"OnDelete"}`, []string{"spec", "updateStrategy", "rollingUpdate"}, nil},
		{"v1beta1 OnDelete's own rollingUpdate is not filled", V1beta1, `"updateStrategy":{"type":"OnDelete","rollingUpdate":{"maxSurge":1}}`, []string{"spec", "updateStrategy", "rollingUpdate"}, map[string]any{"maxSurge": "1"}},
		{"v1beta1 unknown type gets no rollingUpdate", V1beta1, `"updateStrategy":{"type":"Other"}`, []string{"spec", "updateStrategy", "rollingUpdate"}, nil},
		{"v1beta1 enablePVCReuse stays false (a CRD schema default, not the webhook's)", V1beta1, ``, []string{"spec", "scaleStrategy"}, map[string]any{}},
		{"no scale maxUnavailable default", V1beta1, ``, []string{"spec", "scaleStrategy", "maxUnavailable"}, nil},
		{"no progressDeadlineSeconds default", V1alpha1, ``, []string{"spec", "progressDeadlineSeconds"}, nil},
	} {
		d, err := Default(parse(t, cloneSet(c.version, c.spec)), nil, Gates{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := at(t, d, c.path...); !equalJSON(got, c.want) {
			t.Errorf("%s: %s = %v, want %v", c.name, strings.Join(c.path, "."), got, c.want)
		}
	}
}

// equalJSON compares decoded JSON values (numbers as text).
func equalJSON(a, b any) bool { return mustJSON(numbersAsText(a)) == mustJSON(numbersAsText(b)) }

func numbersAsText(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = numbersAsText(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = numbersAsText(e)
		}
		return out
	case interface{ String() string }:
		return x.String()
	}
	return v
}

// withMarkedTemplates replaces the template defaults with ones that mark
// what they default, for the duration of a test.
func withMarkedTemplates(t *testing.T) {
	t.Helper()
	savedPod, savedClaim := defaultPodTemplate, defaultClaimTemplate
	t.Cleanup(func() { defaultPodTemplate, defaultClaimTemplate = savedPod, savedClaim })
	defaultPodTemplate = func(tpl map[string]any) (map[string]any, error) {
		out, err := savedPod(tpl)
		if err != nil {
			return nil, err
		}
		out["spec"].(map[string]any)["schedulerName"] = "defaulted"
		return out, nil
	}
	defaultClaimTemplate = func(c map[string]any) (map[string]any, error) {
		out := copyTree(c).(map[string]any)
		out["status"] = map[string]any{"phase": "Pending"}
		return out, nil
	}
}

// TestTemplateDefaultsInjected: the template's and claims' defaults on a
// create, on an update only when the typed template changed, never with
// TemplateNoDefaults.
func TestTemplateDefaultsInjected(t *testing.T) {
	withMarkedTemplates(t)
	withClaim := `"volumeClaimTemplates":[{"metadata":{"name":"data"}}]`
	obj := parse(t, cloneSet(V1beta1, withClaim))
	changed := parse(t, strings.Replace(cloneSet(V1beta1, withClaim), "nginx:1.25", "nginx:1.26", 1))
	// The same template written otherwise: an unknown member, a null.
	same := parse(t, strings.Replace(cloneSet(V1beta1, withClaim), `"image":"nginx:1.25"`, `"image":"nginx:1.25","x-unknown":1,"env":null`, 1))
	for _, c := range []struct {
		name     string
		obj, old *Object
		gates    Gates
		want     bool
	}{
		{"create", obj, nil, Gates{}, true},
		{"update, template changed", changed, obj, Gates{}, true},
		{"update, same typed template", same, obj, Gates{}, false},
		{"create with TemplateNoDefaults", obj, nil, Gates{TemplateNoDefaults: true}, false},
		{"update with TemplateNoDefaults", changed, obj, Gates{TemplateNoDefaults: true}, false},
	} {
		d, err := Default(c.obj, c.old, c.gates)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		pod := at(t, d, "spec", "template", "spec", "schedulerName") == "defaulted"
		claims := at(t, d, "spec", "volumeClaimTemplates").([]any)
		claim := claims[0].(map[string]any)["status"].(map[string]any)["phase"] == "Pending"
		if pod != c.want || claim != c.want {
			t.Errorf("%s: template defaulted %v, claim defaulted %v, want %v", c.name, pod, claim, c.want)
		}
		if at(t, d, "spec", "replicas") != "1" {
			t.Errorf("%s: the CloneSet's own defaults are always applied", c.name)
		}
	}
}

// TestHostNetworkPortsGate: with DefaultHostNetworkHostPortsInPodTemplates
// a hostNetwork template's ports get hostPort = containerPort where it is
// 0; without it, or without hostNetwork, nothing.
func TestHostNetworkPortsGate(t *testing.T) {
	const tpl = `{"apiVersion":"apps.kruise.io/v1beta1","kind":"CloneSet","metadata":{"name":"web","namespace":"default"},"spec":{"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"hostNetwork":HN,"initContainers":[{"name":"i","image":"busybox","ports":[{"containerPort":81}]}],"containers":[{"name":"c","image":"nginx","ports":[{"containerPort":80},{"containerPort":90,"hostPort":91}]}]}}}}`
	for _, c := range []struct {
		hostNetwork string
		gate        bool
		want        []any
	}{
		{"true", true, []any{"81", "80", "91"}},
		{"true", false, []any{nil, nil, "91"}},
		{"false", true, []any{nil, nil, "91"}},
	} {
		d, err := Default(parse(t, strings.Replace(tpl, "HN", c.hostNetwork, 1)), nil, Gates{DefaultHostNetworkHostPortsInPodTemplates: c.gate})
		if err != nil {
			t.Fatal(err)
		}
		spec := at(t, d, "spec", "template", "spec").(map[string]any)
		var got []any
		for _, group := range []string{"initContainers", "containers"} {
			for _, ct := range spec[group].([]any) {
				for _, p := range ct.(map[string]any)["ports"].([]any) {
					got = append(got, numbersAsText(p.(map[string]any)["hostPort"]))
				}
			}
		}
		if mustJSON(got) != mustJSON(c.want) {
			t.Errorf("hostNetwork %s, gate %v: hostPorts %v, want %v", c.hostNetwork, c.gate, got, c.want)
		}
	}
}

// TestDefaultKeepsItsInput: Default returns a new object and leaves its
// input as it was.
func TestDefaultKeepsItsInput(t *testing.T) {
	obj := parse(t, cloneSet(V1alpha1, ""))
	before := jsonOf(t, obj)
	if _, err := Default(obj, nil, Gates{}); err != nil {
		t.Fatal(err)
	}
	if after := jsonOf(t, obj); after != before {
		t.Fatalf("the input changed:\n%s\n%s", before, after)
	}
}

// TestDefaultRefusesTwoVersions: an update's objects are of one version.
func TestDefaultRefusesTwoVersions(t *testing.T) {
	_, err := Default(parse(t, cloneSet(V1alpha1, "")), parse(t, cloneSet(V1beta1, "")), Gates{})
	if err == nil || !strings.Contains(err.Error(), "old object is apps.kruise.io/v1beta1") {
		t.Fatalf("got %v", err)
	}
}

// TestParseGates: kruise's --feature-gates syntax for the three gates.
func TestParseGates(t *testing.T) {
	g, err := ParseGates(" TemplateNoDefaults=true, ResourcesDeletionProtection=true,DefaultHostNetworkHostPortsInPodTemplates=false")
	if err != nil || g != (Gates{TemplateNoDefaults: true, ResourcesDeletionProtection: true}) {
		t.Fatalf("got %+v, %v", g, err)
	}
	if g.String() != "ResourcesDeletionProtection=true,TemplateNoDefaults=true" {
		t.Errorf("String: %q", g.String())
	}
	if g, err := ParseGates(""); err != nil || g != (Gates{}) {
		t.Errorf("empty: %+v, %v", g, err)
	}
	for _, bad := range []string{"CloneSetShortHash=true", "TemplateNoDefaults", "TemplateNoDefaults=yes"} {
		if _, err := ParseGates(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
