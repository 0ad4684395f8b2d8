package webhook_test

import (
	"testing"

	"github.com/deliverykit/deliverykit/internal/teststore"
	"github.com/deliverykit/deliverykit/webhook/webhooktest"
)

func TestConformanceMemory(t *testing.T) {
	webhooktest.Run(t, teststore.Memory)
}

func TestConformanceBolt(t *testing.T) {
	webhooktest.Run(t, teststore.Bolt)
}
