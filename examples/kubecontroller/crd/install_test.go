package crd

import (
	"context"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

// fakeServer is controller-runtime's fake client holding objs; every
// definition it returns carries conditions (an API server sets them itself).
func fakeServer(t *testing.T, conditions []apiextensionsv1.CustomResourceDefinitionCondition, objs ...client.Object) client.Client {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := apiextensionsv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	return fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).WithInterceptorFuncs(interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if err := c.Get(ctx, key, obj, opts...); err != nil {
				return err
			}
			if d, ok := obj.(*apiextensionsv1.CustomResourceDefinition); ok {
				d.Status.Conditions = conditions
			}
			return nil
		},
	}).Build()
}

var established = []apiextensionsv1.CustomResourceDefinitionCondition{
	{Type: apiextensionsv1.NamesAccepted, Status: apiextensionsv1.ConditionTrue},
	{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue},
}

func TestInstallCreates(t *testing.T) {
	c := fakeServer(t, established)
	if err := Install(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	got := &apiextensionsv1.CustomResourceDefinition{}
	if err := c.Get(context.Background(), client.ObjectKey{Name: Name}, got); err != nil {
		t.Fatal(err)
	}
	if len(got.Spec.Versions) != 2 || got.Spec.Names.Kind != "CloneSet" {
		t.Fatalf("installed %+v", got.Spec)
	}
}

func TestInstallUpdates(t *testing.T) {
	old := loadCRD(t)
	old.Spec.Versions = old.Spec.Versions[:1]
	old.Labels = map[string]string{"kept": "yes"}
	c := fakeServer(t, established, old)
	if err := Install(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	got := &apiextensionsv1.CustomResourceDefinition{}
	if err := c.Get(context.Background(), client.ObjectKey{Name: Name}, got); err != nil {
		t.Fatal(err)
	}
	if len(got.Spec.Versions) != 2 {
		t.Errorf("the update kept %d versions, want the manifest's 2", len(got.Spec.Versions))
	}
	if got.Labels["kept"] != "yes" || got.Labels["app.kubernetes.io/part-of"] != "cloneset" {
		t.Errorf("labels %v: want the existing ones and the manifest's", got.Labels)
	}
}

// TestInstallDefinitionOfAnotherName: InstallDefinition installs the
// definition it is given, waits for that one, and leaves it unmodified.
func TestInstallDefinitionOfAnotherName(t *testing.T) {
	other := loadCRD(t)
	other.Name, other.Spec.Names.Plural, other.Spec.Names.Kind = "widgets.apps.kruise.io", "widgets", "Widget"
	given := other.DeepCopy()
	c := fakeServer(t, established)
	if err := InstallDefinition(context.Background(), c, other); err != nil {
		t.Fatal(err)
	}
	got := &apiextensionsv1.CustomResourceDefinition{}
	if err := c.Get(context.Background(), client.ObjectKey{Name: "widgets.apps.kruise.io"}, got); err != nil || got.Spec.Names.Kind != "Widget" {
		t.Fatalf("installed %v %+v", err, got.Spec.Names)
	}
	if err := c.Get(context.Background(), client.ObjectKey{Name: Name}, &apiextensionsv1.CustomResourceDefinition{}); err == nil {
		t.Errorf("the CloneSet definition was installed too")
	}
	if !equality.Semantic.DeepEqual(other, given) {
		t.Errorf("InstallDefinition modified the definition it was given")
	}
}

func TestInstallWaitsWithADeadline(t *testing.T) {
	c := fakeServer(t, []apiextensionsv1.CustomResourceDefinitionCondition{
		{Type: apiextensionsv1.NamesAccepted, Status: apiextensionsv1.ConditionTrue},
		{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionFalse, Reason: "Installing"},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := Install(ctx, c)
	if err == nil || !strings.Contains(err.Error(), "not Established") || !strings.Contains(err.Error(), "Established=False (Installing)") {
		t.Fatalf("err = %v, want a timeout naming the conditions", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("waited %s past a 300ms deadline", d)
	}
}

func TestInstallNamesRefused(t *testing.T) {
	c := fakeServer(t, []apiextensionsv1.CustomResourceDefinitionCondition{
		{Type: apiextensionsv1.NamesAccepted, Status: apiextensionsv1.ConditionFalse, Reason: "MultipleNamesConflict", Message: `"clone" is already in use`},
	})
	err := Install(context.Background(), c)
	if err == nil || !strings.Contains(err.Error(), "names not accepted") || !strings.Contains(err.Error(), "already in use") {
		t.Fatalf("err = %v, want the NamesAccepted message", err)
	}
}

func TestInstallNeedsTheScheme(t *testing.T) {
	c := fake.NewClientBuilder().WithScheme(runtime.NewScheme()).Build()
	err := Install(context.Background(), c)
	if err == nil || !strings.Contains(err.Error(), "apiextensionsv1.AddToScheme") {
		t.Fatalf("err = %v, want the missing scheme named", err)
	}
}
