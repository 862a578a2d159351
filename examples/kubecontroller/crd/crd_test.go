package crd

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clonecore/cloneset/admission"
	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/internal/admissionrecord"
	"github.com/clonecore/cloneset/manifest"
	"github.com/clonecore/cloneset/requests"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// scenarioRoot holds the repository's golden scenarios.
const scenarioRoot = "../../../testdata/scenarios"

func loadCRD(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	c, err := CustomResourceDefinition()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// version returns the named version of the definition.
func version(t *testing.T, c *apiextensionsv1.CustomResourceDefinition, name string) *apiextensionsv1.CustomResourceDefinitionVersion {
	t.Helper()
	for i := range c.Spec.Versions {
		if c.Spec.Versions[i].Name == name {
			return &c.Spec.Versions[i]
		}
	}
	t.Fatalf("no version %s", name)
	return nil
}

func TestManifestDecodesStrictly(t *testing.T) {
	c := loadCRD(t)
	if c.Name != Name || c.Kind != "CustomResourceDefinition" || c.APIVersion != "apiextensions.k8s.io/v1" {
		t.Fatalf("decoded %s %s %s", c.APIVersion, c.Kind, c.Name)
	}
	// The control: the same decoder refuses an unknown field, a field
	// written twice and a misspelt schema extension.
	for name, edit := range map[string]struct{ old, new string }{
		"unknown field":   {"  scope: Namespaced\n", "  scope: Namespaced\n  scopes: Namespaced\n"},
		"duplicate field": {"  scope: Namespaced\n", "  scope: Namespaced\n  scope: Cluster\n"},
		"misspelt schema": {"x-kubernetes-int-or-string: true", "x-kubernetes-int-or-strings: true"},
	} {
		edited := strings.Replace(string(Manifest), edit.old, edit.new, 1)
		if edited == string(Manifest) {
			t.Fatalf("%s: the edit did not apply", name)
		}
		if _, err := decode([]byte(edited)); err == nil {
			t.Errorf("%s: decoded without an error", name)
		}
	}
}

func TestVersionsAndSubresources(t *testing.T) {
	c := loadCRD(t)
	s := c.Spec
	if s.Group != "apps.kruise.io" || s.Scope != apiextensionsv1.NamespaceScoped {
		t.Errorf("group %q scope %q", s.Group, s.Scope)
	}
	n := s.Names
	if n.Kind != "CloneSet" || n.ListKind != "CloneSetList" || n.Plural != "clonesets" || n.Singular != "cloneset" || len(n.ShortNames) == 0 {
		t.Errorf("names %+v", n)
	}
	if conv := s.Conversion; conv == nil || conv.Strategy != apiextensionsv1.WebhookConverter || conv.Webhook == nil || conv.Webhook.ClientConfig == nil ||
		conv.Webhook.ClientConfig.Service == nil || conv.Webhook.ClientConfig.Service.Path == nil || *conv.Webhook.ClientConfig.Service.Path != "/convert" ||
		!slices.Equal(conv.Webhook.ConversionReviewVersions, []string{"v1"}) {
		t.Errorf("conversion %+v, want the webhook at /convert of the Service, ConversionReview v1", s.Conversion)
	}
	if len(s.Versions) != 2 {
		t.Fatalf("%d versions, want v1beta1 and v1alpha1", len(s.Versions))
	}
	storage := 0
	for _, v := range s.Versions {
		if v.Storage {
			storage++
		}
	}
	beta, alpha := version(t, c, "v1beta1"), version(t, c, "v1alpha1")
	if storage != 1 || !beta.Storage || alpha.Storage {
		t.Errorf("storage: v1beta1 %v, v1alpha1 %v (want v1beta1 only)", beta.Storage, alpha.Storage)
	}
	for _, v := range []*apiextensionsv1.CustomResourceDefinitionVersion{beta, alpha} {
		if !v.Served {
			t.Errorf("%s is not served", v.Name)
		}
		sub := v.Subresources
		if sub == nil || sub.Status == nil || sub.Scale == nil {
			t.Fatalf("%s: subresources %+v, want status and scale", v.Name, sub)
		}
		if sub.Scale.SpecReplicasPath != ".spec.replicas" || sub.Scale.StatusReplicasPath != ".status.replicas" ||
			sub.Scale.LabelSelectorPath == nil || *sub.Scale.LabelSelectorPath != ".status.labelSelector" {
			t.Errorf("%s: scale %+v", v.Name, sub.Scale)
		}
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			t.Fatalf("%s: no schema", v.Name)
		}
		// The scale paths and the printer columns read declared fields.
		paths := []string{sub.Scale.SpecReplicasPath, sub.Scale.StatusReplicasPath, *sub.Scale.LabelSelectorPath}
		columns := map[string]bool{}
		for _, col := range v.AdditionalPrinterColumns {
			columns[strings.ToLower(col.Name)] = true
			if !strings.HasPrefix(col.JSONPath, ".metadata.") {
				paths = append(paths, col.JSONPath)
			}
		}
		for _, p := range paths {
			if _, err := schemaAt(v.Schema.OpenAPIV3Schema, strings.ReplaceAll(p, ".", "/")); err != nil {
				t.Errorf("%s: %v", v.Name, err)
			}
		}
		for _, want := range []string{"desired", "updated", "ready", "available", "age"} {
			if !columns[want] {
				t.Errorf("%s: no printer column %q", v.Name, want)
			}
		}
	}
}

// TestVersionsHaveTheirOwnFields: each version declares its own update
// and scale strategy, and not the other's.
func TestVersionsHaveTheirOwnFields(t *testing.T) {
	c := loadCRD(t)
	for _, tc := range []struct {
		version       string
		have, notHave []string
	}{
		{"v1beta1",
			[]string{"/spec/updateStrategy/rollingUpdate/partition", "/spec/updateStrategy/rollingUpdate/podUpdatePolicy", "/spec/updateStrategy/rollingUpdate/inPlaceUpdateStrategy", "/spec/scaleStrategy/enablePVCReuse", "/spec/scaleStrategy/excludePreparingDelete"},
			[]string{"/spec/updateStrategy/partition", "/spec/updateStrategy/maxSurge", "/spec/updateStrategy/inPlaceUpdateStrategy", "/spec/scaleStrategy/disablePVCReuse"}},
		{"v1alpha1",
			[]string{"/spec/updateStrategy/partition", "/spec/updateStrategy/maxSurge", "/spec/updateStrategy/paused", "/spec/updateStrategy/inPlaceUpdateStrategy", "/spec/scaleStrategy/disablePVCReuse"},
			[]string{"/spec/updateStrategy/rollingUpdate", "/spec/scaleStrategy/enablePVCReuse", "/spec/scaleStrategy/excludePreparingDelete"}},
	} {
		root := version(t, c, tc.version).Schema.OpenAPIV3Schema
		for _, p := range tc.have {
			if _, err := schemaAt(root, p); err != nil {
				t.Errorf("%s: %v", tc.version, err)
			}
		}
		for _, p := range tc.notHave {
			if _, err := schemaAt(root, p); err == nil {
				t.Errorf("%s declares %s, a field of the other version", tc.version, p)
			}
		}
	}
}

// structuralOf converts a version's schema into the API server's structural
// schema, failing on what the server refuses.
func structuralOf(t *testing.T, v *apiextensionsv1.CustomResourceDefinitionVersion) *structuralschema.Structural {
	t.Helper()
	internal := &apiextensions.JSONSchemaProps{}
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v.Schema.OpenAPIV3Schema, internal, nil); err != nil {
		t.Fatal(err)
	}
	s, err := structuralschema.NewStructural(internal)
	if err != nil {
		t.Fatalf("%s: %v", v.Name, err)
	}
	return s
}

func TestSchemaIsStructural(t *testing.T) {
	c := loadCRD(t)
	for _, v := range c.Spec.Versions {
		root := v.Schema.OpenAPIV3Schema
		for _, e := range structuralErrors(v.Name, root) {
			t.Error(e)
		}
		// The API server's own check of the same rules.
		for _, e := range structuralschema.ValidateStructural(field.NewPath(v.Name), structuralOf(t, &v)) {
			t.Errorf("API server: %v", e)
		}
		// The pod template and the claim templates keep every field and are
		// not embedded resources (which must carry apiVersion and kind).
		for _, p := range []string{"/spec/template", "/spec/template/metadata", "/spec/volumeClaimTemplates/-", "/spec/volumeClaimTemplates/-/metadata"} {
			s, err := schemaAt(root, p)
			if err != nil {
				t.Fatal(err)
			}
			if s.XPreserveUnknownFields == nil || !*s.XPreserveUnknownFields || s.XEmbeddedResource {
				t.Errorf("%s %s: preserve unknown fields %v, embedded resource %v (want true, false)", v.Name, p, s.XPreserveUnknownFields, s.XEmbeddedResource)
			}
		}
	}
}

// TestStructuralWalkerFindsBreaks breaks the schema on purpose, one rule at
// a time, and expects the walker to notice.
func TestStructuralWalkerFindsBreaks(t *testing.T) {
	for name, breakIt := range map[string]func(root *apiextensionsv1.JSONSchemaProps){
		"no type": func(root *apiextensionsv1.JSONSchemaProps) {
			setProperty(root, "spec", "replicas", func(s *apiextensionsv1.JSONSchemaProps) { s.Type = "" })
		},
		"int-or-string with a type": func(root *apiextensionsv1.JSONSchemaProps) {
			setProperty(root, "spec", "scaleStrategy", func(s *apiextensionsv1.JSONSchemaProps) {
				p := s.Properties["maxUnavailable"]
				p.Type = "string"
				s.Properties["maxUnavailable"] = p
			})
		},
		"map list key not required": func(root *apiextensionsv1.JSONSchemaProps) {
			setProperty(root, "status", "conditions", func(s *apiextensionsv1.JSONSchemaProps) { s.Items.Schema.Required = nil })
		},
		"array without items": func(root *apiextensionsv1.JSONSchemaProps) {
			setProperty(root, "spec", "volumeClaimTemplates", func(s *apiextensionsv1.JSONSchemaProps) { s.Items = nil })
		},
	} {
		root := loadCRD(t).Spec.Versions[0].Schema.OpenAPIV3Schema
		breakIt(root)
		if errs := structuralErrors("v1beta1", root); len(errs) == 0 {
			t.Errorf("%s: the walker found nothing", name)
		}
	}
}

// setProperty edits root.properties[parent].properties[name].
func setProperty(root *apiextensionsv1.JSONSchemaProps, parent, name string, edit func(*apiextensionsv1.JSONSchemaProps)) {
	p := root.Properties[parent]
	s := p.Properties[name]
	edit(&s)
	p.Properties[name] = s
	root.Properties[parent] = p
}

// goldenCloneSets are the CloneSet documents of the golden scenarios, as
// JSON-like trees, with the scenarios' status writes and CloneSet spec
// patches (requests.Build on the scenarios the library plans).
type goldenCloneSets struct {
	// objects are the CloneSets of the scenarios the library loads.
	objects []sourced
	// statusWrites are the "status" members of the status patches.
	statusWrites []sourced
	// specPatches are the JSON patch operations on CloneSets.
	specPatches []sourced
	// refused counts the scenarios the library refuses (bad input on
	// purpose): their CloneSets are not checked.
	refused int
}

// sourced is a value and the file it comes from.
type sourced struct {
	file  string
	value map[string]any
}

func readGoldenCloneSets(t *testing.T) goldenCloneSets {
	t.Helper()
	var out goldenCloneSets
	err := filepath.WalkDir(scenarioRoot, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") {
			return err
		}
		scns, err := manifest.LoadAllFiles([]string{path}, nil)
		if err != nil {
			out.refused++
			return nil
		}
		docs, err := readDocuments(path)
		if err != nil {
			return err
		}
		for _, d := range docs {
			if d["kind"] == "CloneSet" {
				out.objects = append(out.objects, sourced{path, d})
			}
		}
		for _, scn := range scns {
			plan, err := clonesetcore.Plan(scn)
			if err != nil {
				continue // a plan refused (size limits): no requests
			}
			reqs, err := requests.Build(scn, plan)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			for _, r := range reqs {
				if r.Resource != requests.ResourceCloneSets {
					continue
				}
				switch {
				case r.Subresource == requests.SubresourceStatus:
					var body map[string]any
					mustUnmarshal(t, path, r.Patch, &body)
					out.statusWrites = append(out.statusWrites, sourced{path, body})
				case r.PatchType == requests.PatchJSON:
					var ops []map[string]any
					mustUnmarshal(t, path, r.Patch, &ops)
					for _, op := range ops {
						out.specPatches = append(out.specPatches, sourced{path, op})
					}
				default:
					t.Fatalf("%s: a CloneSet request this test does not know: %s %s", path, r.Verb, r.PatchType)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The test must see what it checks: many CloneSets of both versions,
	// status writes with conditions, podsToDelete rewrites.
	var alpha, conditions int
	for _, o := range out.objects {
		if o.value["apiVersion"] == "apps.kruise.io/v1alpha1" {
			alpha++
		}
	}
	for _, w := range out.statusWrites {
		if c, _ := w.value["status"].(map[string]any)["conditions"].([]any); len(c) > 0 {
			conditions++
		}
	}
	if len(out.objects) < 100 || alpha < 5 || len(out.statusWrites) < 100 || conditions < 5 || len(out.specPatches) < 2 {
		t.Fatalf("too little to check: %d CloneSets (%d v1alpha1), %d status writes (%d with conditions), %d spec patch operations",
			len(out.objects), alpha, len(out.statusWrites), conditions, len(out.specPatches))
	}
	return out
}

func mustUnmarshal(t *testing.T, source string, data []byte, v any) {
	t.Helper()
	if err := utiljson.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", source, err)
	}
}

// readDocuments reads a YAML stream into JSON-like trees (numbers as int64
// or float64), with the items of List documents.
func readDocuments(path string) ([]map[string]any, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var out []map[string]any
	for {
		doc, err := reader.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		j, err := utilyaml.ToJSON(doc)
		if err != nil {
			return nil, err
		}
		var m map[string]any
		if err := utiljson.Unmarshal(j, &m); err != nil {
			return nil, err
		}
		if m == nil {
			continue
		}
		if m["kind"] == "List" {
			items, _ := m["items"].([]any)
			for _, it := range items {
				if o, ok := it.(map[string]any); ok {
					out = append(out, o)
				}
			}
			continue
		}
		out = append(out, m)
	}
}

func versionOf(obj map[string]any) string {
	s, _ := obj["apiVersion"].(string)
	return strings.TrimPrefix(s, "apps.kruise.io/")
}

// TestSchemaDeclaresGoldenCloneSets: every spec and status field of the
// golden scenarios' CloneSets is declared by the schema of its version,
// with the value's type, and the lists keep their list types.
func TestSchemaDeclaresGoldenCloneSets(t *testing.T) {
	c := loadCRD(t)
	golden := readGoldenCloneSets(t)
	for _, o := range golden.objects {
		v := version(t, c, versionOf(o.value))
		for _, part := range []string{"spec", "status"} {
			for _, e := range valueErrors(part, o.value[part], propertyOf(v.Schema.OpenAPIV3Schema, part)) {
				t.Errorf("%s: %s", o.file, e)
			}
		}
		for _, e := range listtype.ValidateListSetsAndMaps(nil, structuralOf(t, v), o.value) {
			t.Errorf("%s: %v", o.file, e)
		}
	}
	t.Logf("%d CloneSets checked (%d scenarios refused by the library on purpose)", len(golden.objects), golden.refused)
}

// TestSchemaDeclaresWhatRequestsWrite: every field of every status patch
// and every CloneSet spec patch requests.Build sends for the golden
// scenarios is declared, with the value's type.
func TestSchemaDeclaresWhatRequestsWrite(t *testing.T) {
	c := loadCRD(t)
	golden := readGoldenCloneSets(t)
	t.Logf("%d status writes and %d CloneSet patch operations checked", len(golden.statusWrites), len(golden.specPatches))
	for _, v := range c.Spec.Versions {
		root := v.Schema.OpenAPIV3Schema
		status := structuralOf(t, &v)
		for _, w := range golden.statusWrites {
			for _, e := range valueErrors("status", w.value["status"], propertyOf(root, "status")) {
				t.Errorf("%s: %s: %s", v.Name, w.file, e)
			}
			for _, e := range listtype.ValidateListSetsAndMaps(nil, status, w.value) {
				t.Errorf("%s: %s: %v", v.Name, w.file, e)
			}
		}
		for _, op := range golden.specPatches {
			path, _ := op.value["path"].(string)
			if strings.HasPrefix(path, "/metadata/") {
				continue
			}
			s, err := schemaAt(root, path)
			if err != nil {
				t.Errorf("%s: %s: %v", v.Name, op.file, err)
				continue
			}
			if value, ok := op.value["value"]; ok {
				for _, e := range valueErrors(path, value, s) {
					t.Errorf("%s: %s: %s", v.Name, op.file, e)
				}
			}
		}
	}
}

// TestValueWalkerFindsBreaks: a field the schema does not declare, or a
// value of another type, is reported.
func TestValueWalkerFindsBreaks(t *testing.T) {
	root := loadCRD(t).Spec.Versions[0].Schema.OpenAPIV3Schema
	for name, obj := range map[string]string{
		"undeclared":          `{"spec": {"replicaz": 3}}`,
		"wrong type":          `{"spec": {"replicas": "3"}}`,
		"not int-or-string":   `{"spec": {"scaleStrategy": {"maxUnavailable": true}}}`,
		"not a date-time":     `{"status": {"conditions": [{"type": "A", "lastUpdateTime": "yesterday"}]}}`,
		"undeclared in items": `{"status": {"conditions": [{"type": "A", "severity": "high"}]}}`,
	} {
		var m map[string]any
		mustUnmarshal(t, name, []byte(obj), &m)
		if errs := valueErrors("", m, root); len(errs) == 0 {
			t.Errorf("%s: the walker found nothing in %s", name, obj)
		}
	}
	var kept map[string]any
	mustUnmarshal(t, "kept", []byte(`{"spec": {"template": {"metadata": {"finalizers": ["x"]}, "spec": {"containers": [{"name": "a"}]}}}}`), &kept)
	if errs := valueErrors("", kept, root); len(errs) > 0 {
		t.Errorf("the template's fields were reported: %v", errs)
	}
}

func propertyOf(s *apiextensionsv1.JSONSchemaProps, name string) *apiextensionsv1.JSONSchemaProps {
	p := s.Properties[name]
	return &p
}

// TestNothingIsPruned runs the API server's own pruning on every golden
// CloneSet and every status write, and on the record of what OpenKruise's
// webhooks make of 100 CloneSets (testdata/conformance-admission: the
// defaulted objects and their conversions), along the path an object takes:
// pruned by the schema of the version it is written in, converted to the
// storage version (the conversion webhook: package admission) and pruned by
// its schema when it is stored; read back, converted to the version it is
// read in and pruned by that version's schema. Not one field may go, and
// what is read in the version it was written in is what was written, where
// the conversion is lossless (a v1beta1 object whose v1alpha1 form is not
// one upstream loses nothing of).
func TestNothingIsPruned(t *testing.T) {
	c := loadCRD(t)
	schemas := map[string]*structuralschema.Structural{}
	storage := ""
	for _, v := range c.Spec.Versions {
		schemas[v.Name] = structuralOf(t, &v)
		if v.Storage {
			storage = v.Name
		}
	}
	prune := func(obj map[string]any, version string) []string {
		return pruning.PruneWithOptions(obj, schemas[version], true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
	}
	convert := func(file string, obj map[string]any, to string) map[string]any {
		if versionOf(obj) == to {
			return obj
		}
		data, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		out, err := admission.ConvertJSON(data, admission.Version(to))
		if err != nil {
			t.Fatalf("%s: convert to %s: %v", file, to, err)
		}
		var m map[string]any
		mustUnmarshal(t, file, out, &m)
		return m
	}
	checked := 0
	check := func(file string, obj map[string]any) {
		written := versionOf(obj)
		for read := range schemas {
			checked++
			o := deepCopy(t, obj)
			pruned := prune(o, written)
			o = convert(file, o, storage)
			pruned = append(pruned, prune(o, storage)...)
			o = convert(file, o, read)
			pruned = append(pruned, prune(o, read)...)
			if len(pruned) > 0 {
				t.Errorf("%s: written as %s, read as %s: the API server prunes %v", file, written, read, pruned)
			}
		}
	}
	golden := readGoldenCloneSets(t)
	for _, o := range golden.objects {
		check(o.file, o.value)
	}
	for _, w := range golden.statusWrites {
		for name := range schemas {
			obj := deepCopy(t, w.value)
			obj["apiVersion"], obj["kind"] = "apps.kruise.io/"+name, "CloneSet"
			obj["metadata"] = map[string]any{"name": "status", "namespace": "default"}
			obj["spec"] = map[string]any{"selector": map[string]any{"matchLabels": map[string]any{"app": "a"}}, "template": map[string]any{}}
			check(w.file, obj)
		}
	}
	for _, r := range readAdmissionRecord(t) {
		check(r.file+" defaulted", r.defaulted)
		check(r.file+" converted", r.converted)
	}
	if checked < 1000 {
		t.Errorf("%d paths checked", checked)
	}
	t.Logf("%d write and read paths checked", checked)
}

// admissionRecord is one world of testdata/conformance-admission: the
// object after OpenKruise's mutating webhook, and converted to the other
// version.
type admissionRecord struct {
	file                 string
	defaulted, converted map[string]any
}

// admissionRecordDir is the record of OpenKruise's webhooks.
const admissionRecordDir = "../../../testdata/conformance-admission"

func readAdmissionRecord(t *testing.T) []admissionRecord {
	t.Helper()
	lines, err := admissionrecord.Read(admissionRecordDir)
	if err != nil {
		t.Fatal(err)
	}
	var out []admissionRecord
	for _, l := range lines {
		// As plain JSON trees (numbers as float64), as the schema walkers
		// and the pruning read them.
		out = append(out, admissionRecord{file: "conformance-admission " + l.ID, defaulted: deepCopy(t, l.Defaulted), converted: deepCopy(t, l.Converted)})
	}
	if len(out) != 100 {
		t.Fatalf("%d worlds in the admission record, want 100", len(out))
	}
	return out
}

// TestSchemaDeclaresTheAdmissionRecord: every spec field of what
// OpenKruise's webhooks make of the record's CloneSets, defaulted and
// converted, is declared by the schema of its version, with its type.
func TestSchemaDeclaresTheAdmissionRecord(t *testing.T) {
	c := loadCRD(t)
	for _, r := range readAdmissionRecord(t) {
		for what, obj := range map[string]map[string]any{"defaulted": r.defaulted, "converted": r.converted} {
			v := version(t, c, versionOf(obj))
			for _, e := range valueErrors("spec", obj["spec"], propertyOf(v.Schema.OpenAPIV3Schema, "spec")) {
				t.Errorf("%s %s: %s", r.file, what, e)
			}
		}
	}
}

func deepCopy(t *testing.T, v map[string]any) map[string]any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	mustUnmarshal(t, "copy", data, &out)
	return out
}
