package admission

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"

	"github.com/clonecore/cloneset/manifest"
	"github.com/clonecore/cloneset/model"
)

// TestDefaultIsIdempotentAndDeterministic: the mutating webhook's output is
// its own output again (a stored object read back through the webhook does
// not change), the same bytes every time, and reads back as itself.
func TestDefaultIsIdempotentAndDeterministic(t *testing.T) {
	loadRecordTemplates(t)
	rapid.Check(t, func(t *rapid.T) {
		obj := drawObject(t, "")
		gates := Gates{TemplateNoDefaults: rapid.Bool().Draw(t, "noDefaults")}
		once, err := Default(obj, nil, gates)
		if err != nil {
			t.Fatal(err)
		}
		again, err := Default(obj, nil, gates)
		if err != nil {
			t.Fatal(err)
		}
		twice, err := Default(once, nil, gates)
		if err != nil {
			t.Fatal(err)
		}
		a, b, c := jsonOf(t, once), jsonOf(t, again), jsonOf(t, twice)
		if a != b {
			t.Fatalf("not deterministic:\n%s\n%s", a, b)
		}
		if a != c {
			t.Fatalf("not idempotent:\n once  %s\n twice %s", a, c)
		}
		if back := jsonOf(t, parse(t, a)); back != a {
			t.Fatalf("the output reads back otherwise:\n%s\n%s", a, back)
		}
		// As an update of itself: nothing changes and nothing is refused
		// that the create did not refuse.
		upd, err := Default(once, once, gates)
		if err != nil || jsonOf(t, upd) != a {
			t.Fatalf("an update to itself changed it: %v", err)
		}
		created, err := Validate(Create, once, nil, Options{})
		if err != nil {
			t.Fatal(err)
		}
		updated, err := Validate(Update, once, once, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(updated) > len(created) {
			t.Fatalf("an update to itself is refused more than the create: %v / %v", updated, created)
		}
	})
}

// TestRoundTripThroughV1alpha1: a v1beta1 object converted to v1alpha1 and
// back is itself wherever upstream's conversion is lossless (losslessV1beta1
// names the losses, docs/spec/admission-and-conversion.md 4.3), and the
// losses settle: a third round trip changes nothing (the second may still
// rewrite a pre-download annotation the first turned into a member: "05"
// becomes 5, then "5").
func TestRoundTripThroughV1alpha1(t *testing.T) {
	loadRecordTemplates(t)
	lossless := 0
	rapid.Check(t, func(t *rapid.T) {
		obj := drawObject(t, V1beta1)
		if rapid.Bool().Draw(t, "defaulted") {
			var err error
			if obj, err = Default(obj, nil, Gates{}); err != nil {
				t.Fatal(err)
			}
		}
		trip := func(o *Object) *Object {
			a, err := Convert(o, V1alpha1)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Convert(a, V1beta1)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
		once := trip(obj)
		twice := trip(once)
		if thrice := trip(twice); jsonOf(t, thrice) != jsonOf(t, twice) {
			t.Fatalf("a third round trip changed it:\n%s\n%s", jsonOf(t, twice), jsonOf(t, thrice))
		}
		if !losslessV1beta1(obj) {
			return
		}
		lossless++
		if got, want := jsonOf(t, once), jsonOf(t, obj); got != want {
			t.Fatalf("lost in a lossless round trip:\n got  %s\n want %s", got, want)
		}
	})
	if lossless == 0 {
		t.Fatal("no lossless object drawn: the property tested nothing")
	}
}

// losslessV1beta1 reports whether upstream's round trip through v1alpha1
// gives a v1beta1 object back unchanged: none of the losses applies.
func losslessV1beta1(o *Object) bool {
	md := o.metadata()
	spec := o.tree["spec"].(map[string]any)
	ss := spec["scaleStrategy"].(map[string]any)
	labels, annotations := stringMap(md["labels"]), stringMap(md["annotations"])
	// excludePreparingDelete comes back from the label alone.
	if (ss["excludePreparingDelete"] == true) != (labels[model.LabelScalingExcludePreparingDelete] == "true") {
		return false
	}
	// Any pre-download annotation makes an in-place strategy; its members
	// become annotations.
	if model.ImagePreDownloadFromAnnotations(annotations).Any {
		return false
	}
	us := spec["updateStrategy"].(map[string]any)
	ru, hasRU := us["rollingUpdate"].(map[string]any)
	switch us["type"] {
	case model.UpdateStrategyOnDelete:
		return !hasRU // OnDelete drops a rollingUpdate block on the way back
	case model.UpdateStrategyRollingUpdate:
	default:
		return false // no type, or an unknown one, comes back RollingUpdate
	}
	if !hasRU {
		return false // comes back with a rollingUpdate block
	}
	switch ru["podUpdatePolicy"] {
	case model.PolicyReCreate, model.PolicyInPlaceIfPossible, model.PolicyInPlaceOnly:
	default:
		return false // no policy, or an unknown one, comes back ReCreate
	}
	if ip, ok := ru["inPlaceUpdateStrategy"].(map[string]any); ok {
		// Only a grace period survives, and only a non-zero one.
		if _, grace := ip["gracePeriodSeconds"]; !grace || len(ip) != 1 {
			return false
		}
	}
	return true
}

// TestModelDefaultsAgree: the CloneSet's model-level defaults
// (model.SetDefaults and model.ConvertV1alpha1 on the object as read) are
// the full object's defaults (Default) as the model reads them. The pod
// template and claim templates are left out: the model does not default
// them.
func TestModelDefaultsAgree(t *testing.T) {
	loadRecordTemplates(t)
	rapid.Check(t, func(t *rapid.T) {
		tree := gen{t}.cloneSet("")
		obj, err := FromTree(tree)
		if err != nil {
			t.Fatal(err)
		}
		d, err := Default(obj, nil, Gates{})
		if err != nil {
			t.Fatal(err)
		}
		fromDefault, err := manifest.DecodeCloneSetTree(d.Tree(), "defaulted")
		if err != nil {
			t.Fatal(err)
		}
		model.ConvertV1alpha1(fromDefault)
		fromModel, err := manifest.DecodeCloneSetTree(tree, "as written")
		if err != nil {
			t.Fatal(err)
		}
		model.SetDefaults(fromModel)
		model.ConvertV1alpha1(fromModel)
		if diff := cmp.Diff(fromModel, fromDefault, cmpopts.EquateEmpty(),
			cmpopts.IgnoreFields(model.CloneSetSpec{}, "Template", "VolumeClaimTemplates")); diff != "" {
			t.Fatalf("model.SetDefaults and Default disagree (-model +Default):\n%s", diff)
		}
	})
}
