package outbox_test

import (
	"testing"

	"github.com/deliverykit/deliverykit/internal/teststore"
	"github.com/deliverykit/deliverykit/outbox/outboxtest"
)

func TestMemory(t *testing.T) {
	outboxtest.Run(t, teststore.Memory)
}

func TestBolt(t *testing.T) {
	outboxtest.Run(t, teststore.Bolt)
}
