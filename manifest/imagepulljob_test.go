package manifest_test

import (
	"strings"
	"testing"

	"github.com/clonecore/cloneset/manifest"
	"github.com/clonecore/cloneset/model"
	"github.com/google/go-cmp/cmp"
)

// jobDoc is an ImagePullJob document of apiVersion api in namespace ns,
// controlled by owner ("Kind/name", uid uid-name; "" for none).
func jobDoc(api, ns, name, owner string) string {
	var b strings.Builder
	b.WriteString("---\napiVersion: " + api + "\nkind: ImagePullJob\nmetadata:\n  name: " + name + "\n")
	if ns != "" {
		b.WriteString("  namespace: " + ns + "\n")
	}
	b.WriteString("  uid: uid-" + name + "\n  resourceVersion: '7'\n  labels: {app: web}\n")
	if owner != "" {
		kind, oname, _ := strings.Cut(owner, "/")
		b.WriteString("  ownerReferences: [{apiVersion: apps.kruise.io/v1beta1, kind: " + kind + ", name: " + oname + ", uid: uid-" + oname + ", controller: true}]\n")
	}
	b.WriteString("spec:\n  image: img:2\n  parallelism: 1\nstatus: {desired: 3}\n")
	return b.String()
}

// TestLoadImagePullJobs: the loader reads ImagePullJobs of both API
// versions; the CloneSet's are in Scenario.ImagePullJobs, the others set
// aside with the reason (scenario-format.md section 1).
func TestLoadImagePullJobs(t *testing.T) {
	in := splitCloneSet("web", "web", "app=web", 2) +
		jobDoc("apps.kruise.io/v1beta1", "web", "web-2-main", "CloneSet/web") +
		jobDoc("apps.kruise.io/v1alpha1", "", "web-2-side", "CloneSet/web") +
		jobDoc("apps.kruise.io/v1beta1", "web", "ds-1-main", "DaemonSet/ds") +
		jobDoc("apps.kruise.io/v1beta1", "web", "manual", "") +
		jobDoc("apps.kruise.io/v1beta1", "other", "web-1-main", "CloneSet/web") +
		jobDoc("example.com/v1", "web", "not-kruise", "CloneSet/web")
	s, err := manifest.LoadBytes([]byte(in), "jobs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := []*model.ImagePullJob{
		{Name: "web-2-main", Namespace: "web", UID: "uid-web-2-main", ResourceVersion: "7", Labels: map[string]string{"app": "web"}, Image: "img:2",
			OwnerReferences: []model.OwnerReference{{APIVersion: "apps.kruise.io/v1beta1", Kind: "CloneSet", Name: "web", UID: "uid-web", Controller: true}}},
		{Name: "web-2-side", Namespace: "web", UID: "uid-web-2-side", ResourceVersion: "7", Labels: map[string]string{"app": "web"}, Image: "img:2",
			OwnerReferences: []model.OwnerReference{{APIVersion: "apps.kruise.io/v1beta1", Kind: "CloneSet", Name: "web", UID: "uid-web", Controller: true}}},
	}
	if d := cmp.Diff(want, s.ImagePullJobs); d != "" {
		t.Errorf("jobs (-want +got):\n%s", d)
	}
	wantAside := []model.SetAside{
		{Kind: "ImagePullJob", Name: "ds-1-main", Reason: "controlled by DaemonSet ds"},
		{Kind: "ImagePullJob", Name: "manual", Reason: "no controller owner reference"},
		{Kind: "ImagePullJob", Name: "web-1-main", Reason: `in namespace "other", the CloneSet is in "web"`},
	}
	if d := cmp.Diff(wantAside, s.SetAside); d != "" {
		t.Errorf("set aside (-want +got):\n%s", d)
	}

	// Two jobs of one name in one namespace are bad input.
	_, err = manifest.LoadBytes([]byte(in+jobDoc("apps.kruise.io/v1beta1", "web", "manual", "")), "jobs.yaml")
	if err == nil || !strings.Contains(err.Error(), "ImagePullJob web/manual: metadata.name: Duplicate value") {
		t.Errorf("duplicate job: %v", err)
	}
	// A field of the wrong type names the object and the field.
	_, err = manifest.LoadBytes([]byte(splitCloneSet("web", "web", "app=web", 2)+strings.Replace(jobDoc("apps.kruise.io/v1beta1", "web", "j", ""), "image: img:2", "image: [x]", 1)), "jobs.yaml")
	if err == nil || !strings.Contains(err.Error(), "ImagePullJob web/j") || !strings.Contains(err.Error(), "spec.image") {
		t.Errorf("bad image: %v", err)
	}
}

// TestLoadAllImagePullJobs: with several CloneSets, a job goes to the one
// its controller owner reference designates.
func TestLoadAllImagePullJobs(t *testing.T) {
	in := splitCloneSet("ns", "a", "app=a", 1) + "---\n" + splitCloneSet("ns", "b", "app=b", 1) +
		jobDoc("apps.kruise.io/v1beta1", "ns", "a-2-main", "CloneSet/a") +
		jobDoc("apps.kruise.io/v1beta1", "ns", "b-2-main", "CloneSet/b") +
		jobDoc("apps.kruise.io/v1beta1", "ns", "ds-1-main", "DaemonSet/ds")
	scns, err := manifest.LoadAllBytes([]byte(in), "jobs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range scns {
		if len(s.ImagePullJobs) != 1 || s.ImagePullJobs[0].Name != s.CloneSet.Name+"-2-main" {
			t.Errorf("CloneSet %s: jobs %v", s.CloneSet.Name, s.ImagePullJobs)
		}
		if len(s.SetAside) != 1 || s.SetAside[0] != (model.SetAside{Kind: "ImagePullJob", Name: "ds-1-main", Reason: "controlled by DaemonSet ds"}) {
			t.Errorf("CloneSet %s: set aside %v", s.CloneSet.Name, s.SetAside)
		}
	}
}

// TestDecodeObjectImagePullJob: DecodeObject reads an ImagePullJob (the
// in-memory API server of package requests creates it from a request).
func TestDecodeObjectImagePullJob(t *testing.T) {
	o, err := manifest.DecodeObject([]byte(`{"kind":"ImagePullJob","apiVersion":"apps.kruise.io/v1beta1","metadata":{"name":"j","namespace":"ns","creationTimestamp":null,"ownerReferences":[{"apiVersion":"apps.kruise.io/v1beta1","kind":"CloneSet","name":"web","uid":"u","controller":true,"blockOwnerDeletion":true}]},"spec":{"image":"img:2","parallelism":2},"status":{"desired":0}}`), "job")
	if err != nil {
		t.Fatal(err)
	}
	j, ok := o.(*model.ImagePullJob)
	if !ok || j.Name != "j" || j.Namespace != "ns" || j.Image != "img:2" || model.ControllerRef(j.OwnerReferences).UID != "u" {
		t.Fatalf("decoded %#v", o)
	}
}

// TestEncodeRoundTripImagePullJobs: the jobs and the gate survive
// EncodeJSON and EncodeYAML.
func TestEncodeRoundTripImagePullJobs(t *testing.T) {
	in := splitCloneSet("web", "web", "app=web", 2) +
		jobDoc("apps.kruise.io/v1beta1", "web", "web-2-main", "CloneSet/web") +
		"---\napiVersion: clonesetcore/v1alpha1\nkind: Scenario\nnow: '2026-01-01T00:00:00Z'\nfeatureGates: {PreDownloadImageForInPlaceUpdate: true}\n"
	s, err := manifest.LoadBytes([]byte(in), "jobs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !s.Gates.PreDownloadImageForInPlaceUpdate {
		t.Fatal("the gate is not read")
	}
	checkRoundTrip(t, s, "jobs", true)
}
