package admission

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The members the mutating webhook may write (docs/spec/admission-and-conversion.md
// M1-M11, pod-template-defaults.md P1-P6, V1-V9, C1-C10, Q1-Q2), as paths of
// JSON members: "*" is any list index or map key. A set default is written
// only where the typed object has no value (an added member, or a member
// under one); a rounded one is a quantity that may change.
var setDefaults, roundedDefaults = defaultPatterns()

func defaultPatterns() (set, rounded []pattern) {
	set = patterns(
		// M3-M11, both versions.
		"spec.replicas", "spec.revisionHistoryLimit", "spec.updateStrategy.type",
		"spec.updateStrategy.inPlaceUpdateStrategy", "spec.updateStrategy.partition",
		"spec.updateStrategy.maxUnavailable", "spec.updateStrategy.maxSurge",
		"spec.updateStrategy.rollingUpdate", "spec.updateStrategy.rollingUpdate.podUpdatePolicy",
		"spec.updateStrategy.rollingUpdate.inPlaceUpdateStrategy", "spec.updateStrategy.rollingUpdate.partition",
		"spec.updateStrategy.rollingUpdate.maxUnavailable", "spec.updateStrategy.rollingUpdate.maxSurge",
		// P1-P5.
		"spec.template.spec.dnsPolicy", "spec.template.spec.restartPolicy", "spec.template.spec.securityContext",
		"spec.template.spec.terminationGracePeriodSeconds", "spec.template.spec.schedulerName",
		// V1-V9.
		"spec.template.spec.volumes.*.emptyDir", "spec.template.spec.volumes.*.hostPath.type",
		"spec.template.spec.volumes.*.secret.defaultMode", "spec.template.spec.volumes.*.configMap.defaultMode",
		"spec.template.spec.volumes.*.downwardAPI.defaultMode", "spec.template.spec.volumes.*.downwardAPI.items.*.fieldRef.apiVersion",
		"spec.template.spec.volumes.*.projected.defaultMode",
		"spec.template.spec.volumes.*.projected.sources.*.downwardAPI.items.*.fieldRef.apiVersion",
		"spec.template.spec.volumes.*.projected.sources.*.serviceAccountToken.expirationSeconds",
		// Q1.
		"spec.volumeClaimTemplates.*.status.phase",
	)
	rounded = patterns(
		"spec.template.spec.overhead.*",                         // P6
		"spec.volumeClaimTemplates.*.spec.resources.limits.*",   // Q2
		"spec.volumeClaimTemplates.*.spec.resources.requests.*", // Q2
		"spec.volumeClaimTemplates.*.status.capacity.*",         // Q2
	)
	// C1-C10 and M1's host ports (with its gate), for the three kinds of
	// containers (C1-C4 are not the ephemeral containers', which the
	// patterns allow: FuzzDefault and the unit tests hold that).
	for _, kind := range []string{"initContainers", "containers", "ephemeralContainers"} {
		c := "spec.template.spec." + kind + ".*."
		set = append(set, patterns(c+"imagePullPolicy", c+"terminationMessagePath", c+"terminationMessagePolicy",
			c+"ports.*.protocol", c+"ports.*.hostPort", c+"env.*.valueFrom.fieldRef.apiVersion")...)
		for _, probe := range []string{"livenessProbe", "readinessProbe", "startupProbe"} {
			set = append(set, patterns(c+probe+".timeoutSeconds", c+probe+".periodSeconds", c+probe+".successThreshold",
				c+probe+".failureThreshold", c+probe+".httpGet.path", c+probe+".httpGet.scheme")...)
		}
		for _, hook := range []string{"postStart", "preStop"} {
			set = append(set, patterns(c+"lifecycle."+hook+".httpGet.path", c+"lifecycle."+hook+".httpGet.scheme")...)
		}
		rounded = append(rounded, patterns(c+"resources.limits.*", c+"resources.requests.*")...)
	}
	return set, rounded
}

// pattern is a member path with "*" for any segment.
type pattern []string

func patterns(paths ...string) []pattern {
	out := make([]pattern, len(paths))
	for i, p := range paths {
		out[i] = strings.Split(p, ".")
	}
	return out
}

// matches says whether a path of segments is one of the patterns, or
// (under) a member of one with under set.
func matches(path []string, ps []pattern, under bool) bool {
	for _, p := range ps {
		if len(path) < len(p) || (!under && len(path) != len(p)) {
			continue
		}
		ok := true
		for i, seg := range p {
			if seg != "*" && seg != path[i] {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// leaves flattens a JSON document: each scalar, empty object and empty list
// by its path (segments joined with NUL), as its JSON text; objects lists
// the paths of the non-empty objects and lists.
func leaves(t *testing.T, doc string) (leaf map[string]string, objects map[string]bool) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%s: %v", doc, err)
	}
	leaf, objects = map[string]string{}, map[string]bool{}
	var walk func(v any, path []string)
	walk = func(v any, path []string) {
		key := strings.Join(path, "\x00")
		switch x := v.(type) {
		case map[string]any:
			if len(x) > 0 {
				objects[key] = true
				for k, e := range x {
					walk(e, append(path[:len(path):len(path)], k))
				}
				return
			}
		case []any:
			if len(x) > 0 {
				objects[key] = true
				for i, e := range x {
					walk(e, append(path[:len(path):len(path)], strconv.Itoa(i)))
				}
				return
			}
		}
		b, _ := json.Marshal(v) // json.Number: its text
		leaf[key] = string(b)
	}
	walk(v, nil)
	return leaf, objects
}

// checkOnlyDefaults fails when the defaulted JSON out differs from the typed
// JSON in other than the documented defaults: a member the typed object
// has is unchanged (its JSON text: numbers byte for byte), but a rounded
// quantity; a member out adds is a default.
func checkOnlyDefaults(t *testing.T, in, typed, out string) {
	t.Helper()
	was, wasObject := leaves(t, typed)
	now, nowObject := leaves(t, out)
	for key, text := range was {
		path := strings.Split(key, "\x00")
		switch {
		case now[key] == text:
		case matches(path, roundedDefaults, false) && now[key] != "":
		case text == "{}" && nowObject[key]: // an empty object given members: the additions are checked below
		default:
			t.Fatalf("%s\n%s: %s became %q, not a default\ntyped:     %s\ndefaulted: %s", in, strings.Join(path, "."), text, now[key], typed, out)
		}
	}
	for key := range now {
		if _, ok := was[key]; ok {
			continue
		}
		path := strings.Split(key, "\x00")
		if !matches(path, setDefaults, true) {
			t.Fatalf("%s\n%s: %s added, not a default\ntyped:     %s\ndefaulted: %s", in, strings.Join(path, "."), now[key], typed, out)
		}
	}
	for key := range wasObject {
		if !nowObject[key] {
			t.Fatalf("%s\n%s: removed", in, strings.ReplaceAll(key, "\x00", "."))
		}
	}
}

// FuzzDefaultChangesOnlyDefaults: for any object the library reads, the
// mutating webhook's result (a create, and an update of the object by
// itself; gates off and on) is a fixed point (its JSON reads back as
// itself, and defaulting it again, as a create or as an update by itself,
// changes nothing), and every value of the typed object comes back
// unchanged, byte for byte, but where a documented default writes it
// (setDefaults, roundedDefaults); nothing else is added. The seeds are
// testdata/conformance-admission's worlds and values at the edges.
func FuzzDefaultChangesOnlyDefaults(f *testing.F) {
	worlds, _ := filepath.Glob(filepath.Join(recordDir, "worlds", "*.json"))
	for _, w := range worlds {
		data, err := os.ReadFile(w)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, uint8(0))
	}
	f.Add([]byte(withContainer(`"resources":{"limits":{"memory":"1023.9999999Ki","cpu":"0.5"}},"ports":[{"containerPort":8080,"hostPort":0}],"livenessProbe":{"httpGet":{"port":"http"},"terminationGracePeriodSeconds":9223372036854775807}`)), uint8(3))
	f.Add([]byte(strings.Replace(cloneSet(V1alpha1, `"volumeClaimTemplates":[{"metadata":{"name":"d","managedFields":[{"fieldsV1":{ "z":1.50 }}]}}]`), `"nginx:1.25"`, `"nginx:1.25","env":[{"name":"a","valueFrom":{"fieldRef":{"fieldPath":"x"}}}]`, 1)), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, flags uint8) {
		obj, err := Parse(data)
		if err != nil {
			return
		}
		gates := Gates{TemplateNoDefaults: flags&1 != 0, DefaultHostNetworkHostPortsInPodTemplates: flags&2 != 0}
		typed := jsonOf(t, obj)
		for _, old := range []*Object{nil, obj} {
			d, err := Default(obj, old, gates)
			if err != nil {
				t.Fatalf("%s: Default: %v", data, err)
			}
			out := jsonOf(t, d)
			back, err := Parse([]byte(out))
			if err != nil {
				if strings.Contains(err.Error(), "expected an RFC 3339 time") {
					return // a time beyond year 9999 in UTC: written, as kruise writes it, but unreadable
				}
				t.Fatalf("%s: the defaulted object does not read back: %v\n%s", data, err, out)
			}
			if jsonOf(t, back) != out {
				t.Fatalf("%s: the defaulted object reads back otherwise:\n%s\n%s", data, out, jsonOf(t, back))
			}
			againOld := old // a create again; an update of the stored result with itself
			if old != nil {
				againOld = back
			}
			again, err := Default(back, againOld, gates)
			if err != nil || jsonOf(t, again) != out {
				t.Fatalf("%s: defaulting the result again changes it (%v)", data, err)
			}
			checkOnlyDefaults(t, string(data), typed, out)
			if old != nil && !bytes.Equal([]byte(typed), []byte(out)) {
				// The same template: only the CloneSet's own defaults.
				checkOnlyDefaultsOutside(t, string(data), typed, out, "template", "volumeClaimTemplates")
			}
		}
	})
}

// checkOnlyDefaultsOutside fails when out differs from typed under the
// spec members named (which an update with the same template leaves
// alone).
func checkOnlyDefaultsOutside(t *testing.T, in, typed, out string, members ...string) {
	t.Helper()
	was, _ := leaves(t, typed)
	now, _ := leaves(t, out)
	for _, m := range members {
		prefix := "spec\x00" + m
		for key, text := range was {
			if strings.HasPrefix(key, prefix) && now[key] != text {
				t.Fatalf("%s\nan update with the same template changed %s", in, strings.ReplaceAll(key, "\x00", "."))
			}
		}
		for key := range now {
			if _, ok := was[key]; strings.HasPrefix(key, prefix) && !ok {
				t.Fatalf("%s\nan update with the same template added %s", in, strings.ReplaceAll(key, "\x00", "."))
			}
		}
	}
}
