package admission

import (
	"strings"
	"testing"
)

// TestConvertToV1beta1: kruise's ConvertTo, one rule per case
// (docs/spec/admission-and-conversion.md 4.1).
func TestConvertToV1beta1(t *testing.T) {
	checkConversions(t, V1alpha1, V1beta1, []conversionCase{
		{"apiVersion", ``, ``, []string{"apiVersion"}, "apps.kruise.io/v1beta1"},
		{"PVC reuse: absent disablePVCReuse is enablePVCReuse", ``, ``, []string{"spec", "scaleStrategy", "enablePVCReuse"}, true},
		{"PVC reuse: disablePVCReuse", ``, `"scaleStrategy":{"disablePVCReuse":true}`, []string{"spec", "scaleStrategy", "enablePVCReuse"}, nil},
		{"excludePreparingDelete from the label", `"labels":{"apps.kruise.io/cloneset-scaling-exclude-preparing-delete":"true"}`, ``, []string{"spec", "scaleStrategy", "excludePreparingDelete"}, true},
		{"excludePreparingDelete: only exactly true", `"labels":{"apps.kruise.io/cloneset-scaling-exclude-preparing-delete":"True"}`, ``, []string{"spec", "scaleStrategy", "excludePreparingDelete"}, nil},
		{"scale members copied", ``, `"scaleStrategy":{"podsToDelete":["a"],"maxUnavailable":"10%"}`, []string{"spec", "scaleStrategy", "maxUnavailable"}, "10%"},
		{"ReCreate", ``, `"updateStrategy":{"type":"ReCreate"}`, []string{"spec", "updateStrategy"}, map[string]any{"type": "RollingUpdate", "rollingUpdate": map[string]any{"podUpdatePolicy": "ReCreate"}}},
		{"empty type", ``, ``, []string{"spec", "updateStrategy", "rollingUpdate", "podUpdatePolicy"}, "ReCreate"},
		{"unknown type", ``, `"updateStrategy":{"type":"Rolling"}`, []string{"spec", "updateStrategy", "rollingUpdate", "podUpdatePolicy"}, "ReCreate"},
		{"InPlaceOnly", ``, `"updateStrategy":{"type":"InPlaceOnly"}`, []string{"spec", "updateStrategy", "rollingUpdate", "podUpdatePolicy"}, "InPlaceOnly"},
		{"OnDelete drops the whole strategy body", ``, `"updateStrategy":{"type":"OnDelete","partition":3,"paused":true,"maxSurge":1,"inPlaceUpdateStrategy":{"gracePeriodSeconds":5}}`, []string{"spec", "updateStrategy"}, map[string]any{"type": "OnDelete"}},
		{"budget and order members copied", ``, `"updateStrategy":{"type":"InPlaceIfPossible","partition":"10%","maxUnavailable":2,"maxSurge":"5%","paused":true,"priorityStrategy":{"orderPriority":[{"orderedKey":"k"}]},"scatterStrategy":[{"key":"a","value":"b"}]}`,
			[]string{"spec", "updateStrategy", "rollingUpdate"}, map[string]any{"partition": "10%", "maxUnavailable": "2", "maxSurge": "5%", "podUpdatePolicy": "InPlaceIfPossible", "paused": true,
				"priorityStrategy": map[string]any{"orderPriority": []any{map[string]any{"orderedKey": "k"}}}, "scatterStrategy": []any{map[string]any{"key": "a", "value": "b"}}}},
		{"in-place strategy: grace period only from the spec", ``, `"updateStrategy":{"inPlaceUpdateStrategy":{"gracePeriodSeconds":5,"imagePreDownloadTimeoutSeconds":9}}`, []string{"spec", "updateStrategy", "rollingUpdate", "inPlaceUpdateStrategy"}, map[string]any{"gracePeriodSeconds": "5"}},
		{"in-place strategy from the annotations", `"annotations":{"apps.kruise.io/image-predownload-parallelism":"5","apps.kruise.io/image-predownload-timeout-seconds":"600","apps.kruise.io/image-predownload-min-updated-ready-pods":"x"}`, ``,
			[]string{"spec", "updateStrategy", "rollingUpdate", "inPlaceUpdateStrategy"}, map[string]any{"imagePreDownloadParallelism": "5", "imagePreDownloadTimeoutSeconds": "600"}},
		{"a parallelism annotation that is no integer stays a string", `"annotations":{"apps.kruise.io/image-predownload-parallelism":"50%"}`, ``,
			[]string{"spec", "updateStrategy", "rollingUpdate", "inPlaceUpdateStrategy", "imagePreDownloadParallelism"}, "50%"},
		{"the annotations stay", `"annotations":{"apps.kruise.io/image-predownload-parallelism":"5"}`, ``, []string{"metadata", "annotations", "apps.kruise.io/image-predownload-parallelism"}, "5"},
	})
}

// conversionCase is one rule of a conversion: a CloneSet with extra
// metadata and spec members, and a member of its conversion.
type conversionCase struct {
	name     string
	metadata string // extra metadata members
	spec     string
	path     []string
	want     any
}

// checkConversions converts each case's CloneSet of version from to version
// to and compares the member.
func checkConversions(t *testing.T, from, to Version, cases []conversionCase) {
	t.Helper()
	for _, c := range cases {
		doc := cloneSet(from, c.spec)
		if c.metadata != "" {
			doc = strings.Replace(doc, `"namespace":"default"`, `"namespace":"default",`+c.metadata, 1)
		}
		got, err := Convert(parse(t, doc), to)
		if err != nil {
			t.Fatal(err)
		}
		if v := at(t, got, c.path...); !equalJSON(v, c.want) {
			t.Errorf("%s: %s = %v, want %v", c.name, strings.Join(c.path, "."), mustJSON(numbersAsText(v)), mustJSON(c.want))
		}
	}
}

// TestConvertFromV1beta1: kruise's ConvertFrom, one rule per case
// (docs/spec/admission-and-conversion.md 4.2).
func TestConvertFromV1beta1(t *testing.T) {
	checkConversions(t, V1beta1, V1alpha1, []conversionCase{
		{"apiVersion", ``, ``, []string{"apiVersion"}, "apps.kruise.io/v1alpha1"},
		{"PVC reuse: absent enablePVCReuse is disablePVCReuse", ``, ``, []string{"spec", "scaleStrategy", "disablePVCReuse"}, true},
		{"PVC reuse: enablePVCReuse", ``, `"scaleStrategy":{"enablePVCReuse":true}`, []string{"spec", "scaleStrategy", "disablePVCReuse"}, nil},
		{"excludePreparingDelete is lost (no label written)", ``, `"scaleStrategy":{"excludePreparingDelete":true}`, []string{"metadata", "labels"}, nil},
		{"OnDelete", ``, `"updateStrategy":{"type":"OnDelete"}`, []string{"spec", "updateStrategy"}, map[string]any{"type": "OnDelete"}},
		{"OnDelete keeps a rollingUpdate's members", ``, `"updateStrategy":{"type":"OnDelete","rollingUpdate":{"partition":2,"podUpdatePolicy":"InPlaceOnly"}}`, []string{"spec", "updateStrategy"}, map[string]any{"type": "OnDelete", "partition": "2"}},
		{"RollingUpdate without rollingUpdate", ``, `"updateStrategy":{"type":"RollingUpdate"}`, []string{"spec", "updateStrategy"}, map[string]any{"type": "ReCreate"}},
		{"no type", ``, `"updateStrategy":{"rollingUpdate":{"podUpdatePolicy":"InPlaceIfPossible"}}`, []string{"spec", "updateStrategy", "type"}, "InPlaceIfPossible"},
		{"unknown policy", ``, `"updateStrategy":{"rollingUpdate":{"podUpdatePolicy":"Other"}}`, []string{"spec", "updateStrategy", "type"}, "ReCreate"},
		{"an empty in-place strategy is dropped", ``, `"updateStrategy":{"rollingUpdate":{"podUpdatePolicy":"InPlaceOnly","inPlaceUpdateStrategy":{}}}`, []string{"spec", "updateStrategy", "inPlaceUpdateStrategy"}, nil},
		{"the pre-download members go to annotations", ``, `"updateStrategy":{"rollingUpdate":{"inPlaceUpdateStrategy":{"imagePreDownloadParallelism":"7","imagePreDownloadTimeoutSeconds":60,"imagePreDownloadMinUpdatedReadyPods":-1}}}`,
			[]string{"metadata", "annotations"}, map[string]any{"apps.kruise.io/image-predownload-parallelism": "7", "apps.kruise.io/image-predownload-timeout-seconds": "60", "apps.kruise.io/image-predownload-min-updated-ready-pods": "-1"}},
		{"... and the strategy keeps an empty grace period", ``, `"updateStrategy":{"rollingUpdate":{"inPlaceUpdateStrategy":{"imagePreDownloadParallelism":3}}}`, []string{"spec", "updateStrategy", "inPlaceUpdateStrategy"}, map[string]any{}},
		{"annotations are overwritten, never removed", `"annotations":{"apps.kruise.io/image-predownload-parallelism":"1","apps.kruise.io/image-predownload-timeout-seconds":"5"}`, `"updateStrategy":{"rollingUpdate":{"inPlaceUpdateStrategy":{"imagePreDownloadParallelism":3}}}`,
			[]string{"metadata", "annotations"}, map[string]any{"apps.kruise.io/image-predownload-parallelism": "3", "apps.kruise.io/image-predownload-timeout-seconds": "5"}},
		{"the grace period stays in the spec", ``, `"updateStrategy":{"rollingUpdate":{"inPlaceUpdateStrategy":{"gracePeriodSeconds":10}}}`, []string{"spec", "updateStrategy", "inPlaceUpdateStrategy"}, map[string]any{"gracePeriodSeconds": "10"}},
	})
}

// TestConvertKeepsItsInput: Convert returns a new object; its input is as
// it was (ConvertFrom writes annotations into a copy).
func TestConvertKeepsItsInput(t *testing.T) {
	obj := parse(t, cloneSet(V1beta1, `"updateStrategy":{"rollingUpdate":{"inPlaceUpdateStrategy":{"imagePreDownloadParallelism":3}}}`))
	before := jsonOf(t, obj)
	if _, err := Convert(obj, V1alpha1); err != nil {
		t.Fatal(err)
	}
	if jsonOf(t, obj) != before {
		t.Fatal("the input changed")
	}
	same, err := Convert(obj, V1beta1)
	if err != nil || same != obj {
		t.Fatalf("to its own version: %v, %v", same, err)
	}
	if _, err := Convert(obj, "v2"); err == nil {
		t.Fatal("an unknown version: no error")
	}
}
