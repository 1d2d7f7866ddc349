// Package commerce is everything paid: products and prices with weekly
// capacity, promo codes, EU VAT (rates, number checks), quotes, orders and
// checkout through a payment provider, billing details, and the effects a
// paid order has on listings (launch, relaunch, featured slot, unlocked
// sections, extra categories, billboard).
//
// It imports the kernel and vat.
package commerce

import (
	"time"

	"launchdir/app/kernel"
	"launchdir/app/vat"
)

// Service is the commerce domain.
type Service struct {
	*kernel.Kernel
	// VAT works out the tax of every quote and order.
	VAT    *vat.Service
	orders *orderRuntime
}

// New builds the commerce domain.
func New(k *kernel.Kernel, v *vat.Service) *Service {
	return &Service{Kernel: k, VAT: v, orders: &orderRuntime{promoFails: map[int64][]time.Time{}}}
}
