// Package commerce is everything paid: products and prices with weekly
// capacity, promo codes, EU VAT (rates, number checks), quotes, orders and
// checkout through a payment provider, billing details, and the effects a
// paid order has on listings (launch, relaunch, featured slot, unlocked
// sections, extra categories, billboard).
//
// It imports only the kernel.
package commerce

import (
	"time"

	"launchdir/app/kernel"
)

// Service is the commerce domain.
type Service struct {
	*kernel.Kernel
	orders *orderRuntime
}

// New builds the commerce domain.
func New(k *kernel.Kernel) *Service {
	return &Service{Kernel: k, orders: &orderRuntime{promoFails: map[int64][]time.Time{}}}
}
