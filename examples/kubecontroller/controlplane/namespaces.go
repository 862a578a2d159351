package controlplane

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CreateNamespace creates the namespace name and waits until it has its
// default service account (kube-controller-manager creates it a moment
// later; until then the API server's ServiceAccount admission refuses
// pods in it). Without kube-controller-manager (WithoutControllerManager)
// it creates that service account itself, with no token mounted into pods
// (so that pods keep exactly the volumes they are created with).
func (cp *ControlPlane) CreateNamespace(ctx context.Context, name string) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := cp.clientset.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("controlplane: create namespace %s: %w", name, err)
	}
	if !cp.enabled(ControllerManager) {
		no := false
		sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: name}, AutomountServiceAccountToken: &no}
		if _, err := cp.clientset.CoreV1().ServiceAccounts(name).Create(ctx, sa, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("controlplane: the default service account of %s: %w", name, err)
		}
		return nil
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

// namespaceCount numbers the namespaces NewNamespace makes, across control
// planes of a process.
var namespaceCount atomic.Int64

// NewNamespace creates a namespace named after hint (a test or scenario
// name: lower-cased, every run of other characters than letters and digits
// made one '-', cut to leave room for the number) and a number no other
// NewNamespace of the process gave, as CreateNamespace does, and returns
// its name.
func (cp *ControlPlane) NewNamespace(ctx context.Context, hint string) (string, error) {
	name := fmt.Sprintf("%s-%d", dnsLabel(hint, 50), namespaceCount.Add(1))
	return name, cp.CreateNamespace(ctx, name)
}

// dnsLabel makes s a DNS label of at most n characters (lower case,
// letters, digits and '-'; "ns" when nothing is left).
func dnsLabel(s string, n int) string {
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(s) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
			dash = false
		} else if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	out := strings.Trim(b.String(), "-")
	if len(out) > n {
		out = strings.TrimRight(out[:n], "-")
	}
	if out == "" {
		out = "ns"
	}
	return out
}
