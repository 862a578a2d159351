package kruisecrd

import "testing"

// TestImagePullJob: the definition reads strictly and serves v1beta1 (the
// version the controller writes) and v1alpha1, storing v1beta1.
func TestImagePullJob(t *testing.T) {
	def, err := ImagePullJob()
	if err != nil {
		t.Fatal(err)
	}
	if def.Name != "imagepulljobs.apps.kruise.io" || def.Spec.Names.Kind != "ImagePullJob" {
		t.Fatalf("definition %s of kind %s", def.Name, def.Spec.Names.Kind)
	}
	served := map[string]bool{}
	for _, v := range def.Spec.Versions {
		if v.Served {
			served[v.Name] = v.Storage
		}
	}
	if storage, ok := served["v1beta1"]; !ok || !storage || len(served) != 2 {
		t.Fatalf("served versions (storage) %v, want v1alpha1 and v1beta1, v1beta1 stored", served)
	}
}
