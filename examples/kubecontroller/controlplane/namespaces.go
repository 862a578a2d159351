package controlplane

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CreateNamespace creates the namespace name and waits until it has its
// default service account (kube-controller-manager creates it a moment
// later; until then the API server's ServiceAccount admission refuses
// pods in it).
func (cp *ControlPlane) CreateNamespace(ctx context.Context, name string) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := cp.clientset.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("controlplane: create namespace %s: %w", name, err)
	}
	return cp.waitFor(ctx, ControllerManager, "the default service account in namespace "+name, func(ctx context.Context) error {
		return cp.defaultServiceAccount(ctx, name)
	})
}

// defaultServiceAccount checks that namespace has its default service
// account.
func (cp *ControlPlane) defaultServiceAccount(ctx context.Context, namespace string) error {
	_, err := cp.clientset.CoreV1().ServiceAccounts(namespace).Get(ctx, "default", metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return fmt.Errorf("no service account %s/default yet", namespace)
	}
	return err
}
