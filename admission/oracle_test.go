package admission

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/clonecore/cloneset/internal/admissionrecord"
)

// TestOracleLibrary replays testdata/conformance-admission on the library
// directly, with the README's comparison of trees and more strictly than the
// README asks for the verdicts (which cmd/clonesetplan's
// TestConformanceAdmission does through the CLI): each refusal's field, type
// and detail.
func TestOracleLibrary(t *testing.T) {
	lines, err := admissionrecord.Read(recordDir)
	if err != nil {
		t.Fatal(err)
	}
	var defaulted, verdicts, conversions int
	same := func(o *Object, want map[string]any) bool {
		got, err := admissionrecord.DecodeJSON([]byte(jsonOf(t, o)))
		if err != nil {
			t.Fatal(err)
		}
		return reflect.DeepEqual(admissionrecord.Comparable(got), admissionrecord.Comparable(want))
	}
	for _, o := range lines {
		t.Run(o.ID, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(recordDir, "worlds", o.ID+".json"))
			if err != nil {
				t.Fatal(err)
			}
			d, err := Default(parse(t, string(data)), nil, Gates{})
			if err != nil {
				t.Fatal(err)
			}
			if same(d, o.Defaulted) {
				defaulted++
			} else {
				t.Errorf("defaulted differs:\n got  %s\n want %s", jsonOf(t, d), mustJSON(o.Defaulted))
			}
			errs, err := Validate(Create, d, nil, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got []admissionrecord.Error
			for _, e := range errs {
				got = append(got, admissionrecord.Error{Field: e.Path, Type: e.Type.CauseType(), Detail: e.Message})
			}
			want := append([]admissionrecord.Error(nil), o.Errors...)
			sortErrors(got)
			sortErrors(want)
			if len(got) == 0 && len(want) == 0 || reflect.DeepEqual(got, want) {
				verdicts++
			} else {
				t.Errorf("errors differ:\n got  %v\n want %v", got, want)
			}
			to := V1beta1
			if d.Version() == V1beta1 {
				to = V1alpha1
			}
			c, err := Convert(d, to)
			if err != nil {
				t.Fatal(err)
			}
			if same(c, o.Converted) {
				conversions++
			} else {
				t.Errorf("converted differs:\n got  %s\n want %s", jsonOf(t, c), mustJSON(o.Converted))
			}
		})
	}
	t.Logf("library: defaulted %d/%d, verdicts %d/%d, conversions %d/%d", defaulted, len(lines), verdicts, len(lines), conversions, len(lines))
}

func sortErrors(l []admissionrecord.Error) {
	sort.Slice(l, func(i, j int) bool {
		if l[i].Field != l[j].Field {
			return l[i].Field < l[j].Field
		}
		return l[i].Detail < l[j].Detail
	})
}
