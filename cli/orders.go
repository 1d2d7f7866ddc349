package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"launchdir/app/commerce"
	"launchdir/server"
	"strconv"
	"strings"
)

const orderUsage = `launchdir price set CODE CENTS [-capacity N] -db PATH
launchdir price list -db PATH
launchdir promo create -code C -kind percent|fixed -value N [-from RFC3339] [-until RFC3339] [-max N] [-products a,b] -db PATH
launchdir promo list -db PATH
launchdir order refund -number LD-2026-000001 [-note TEXT] -db PATH   (after refunding at the payment provider)
`

// splitPositional separates leading positional arguments from flags, so
// "price set launch 5900 -db x.db" parses.
func splitPositional(args []string) (pos, flags []string) {
	for i, a := range args {
		if strings.HasPrefix(a, "-") {
			return args[:i], args[i:]
		}
	}
	return args, nil
}

func priceCmd(args []string, stdout io.Writer) error {
	sub, args := subcommand(args)
	pos, rest := splitPositional(args)
	fs := flag.NewFlagSet("price", flag.ContinueOnError)
	path := fs.String("db", "./launchdir.db", "SQLite database file")
	capacity := fs.Int64("capacity", -1, "weekly capacity of a week-bound product (set only)")
	if err := server.ParseFlags(fs, rest); err != nil {
		return err
	}
	if sub == "" {
		return errors.New("price needs a subcommand: set or list\n" + orderUsage)
	}
	ctx := context.Background()
	switch sub {
	case "set":
		if len(pos) != 2 {
			return errors.New("usage: launchdir price set CODE CENTS [-capacity N] -db PATH")
		}
		cents, err := strconv.ParseInt(pos[1], 10, 64)
		if err != nil || cents < 0 {
			return fmt.Errorf("bad CENTS %q: want a whole number of cents, e.g. 4900", pos[1])
		}
		a, err := openApp(*path)
		if err != nil {
			return err
		}
		defer a.DB.Close()
		if err := a.Commerce.SetProductPrice(ctx, pos[0], cents, *capacity); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "price of %s set to %d cents\n", pos[0], cents)
		if *capacity >= 0 {
			fmt.Fprintf(stdout, "weekly capacity of %s set to %d\n", pos[0], *capacity)
		}
	case "list":
		if len(pos) != 0 {
			return fmt.Errorf("unexpected argument %q", pos[0])
		}
		a, err := openApp(*path)
		if err != nil {
			return err
		}
		defer a.DB.Close()
		products, err := a.Commerce.AdminProducts(ctx)
		if err != nil {
			return err
		}
		tw := newTable(stdout, "CODE\tPRICE (CENTS)\tCURRENCY\tWEEKLY CAPACITY\tACTIVE\tNAME")
		for _, p := range products {
			capText := "-"
			if p.WeeklyCapacity != nil {
				capText = strconv.FormatInt(*p.WeeklyCapacity, 10)
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%v\t%s\n", p.Code, p.PriceCents, p.Currency, capText, p.Active, p.Name)
		}
		tw.Flush()
	default:
		return fmt.Errorf("unknown price subcommand %q (set or list)", sub)
	}
	return nil
}

func promoCmd(args []string, stdout io.Writer) error {
	sub, args := subcommand(args)
	fs := flag.NewFlagSet("promo", flag.ContinueOnError)
	code := fs.String("code", "", "promo code, matched exactly as typed (max 40)")
	kind := fs.String("kind", "", "percent or fixed")
	value := fs.Int64("value", 0, "percent (1..100) or fixed cents")
	from := fs.String("from", "", "valid from (RFC 3339), optional")
	until := fs.String("until", "", "valid until (RFC 3339, exclusive), optional")
	maxR := fs.Int64("max", 0, "maximum redemptions (0 = unlimited)")
	products := fs.String("products", "", "comma separated product codes it applies to (empty = all)")
	path := fs.String("db", "./launchdir.db", "SQLite database file")
	if err := server.ParseFlags(fs, args); err != nil {
		return err
	}
	a, err := openApp(*path)
	if err != nil {
		return err
	}
	defer a.DB.Close()
	ctx := context.Background()
	if sub == "" {
		return errors.New("promo needs a subcommand: create or list\n" + orderUsage)
	}
	switch sub {
	case "create":
		p := commerce.PromoCode{Code: *code, Kind: *kind, Value: *value, ValidFrom: *from, ValidUntil: *until, Products: []string{}}
		if *maxR < 0 {
			return errors.New("bad -max: must be 0 (unlimited) or more")
		}
		if *maxR > 0 {
			p.MaxRedemptions = maxR
		}
		for _, c := range strings.Split(*products, ",") {
			if c = strings.TrimSpace(c); c != "" {
				p.Products = append(p.Products, c)
			}
		}
		if err := a.Commerce.CreatePromo(ctx, p); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "created promo code %s\n", p.Code)
	case "list":
		list, err := a.Commerce.ListPromos(ctx)
		if err != nil {
			return err
		}
		tw := newTable(stdout, "CODE\tKIND\tVALUE\tFROM\tUNTIL\tUSED\tMAX\tPRODUCTS")
		for _, p := range list {
			maxText := "-"
			if p.MaxRedemptions != nil {
				maxText = strconv.FormatInt(*p.MaxRedemptions, 10)
			}
			prods := strings.Join(p.Products, ",")
			if prods == "" {
				prods = "all"
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%d\t%s\t%s\n", p.Code, p.Kind, p.Value, dash(p.ValidFrom), dash(p.ValidUntil), p.Redemptions, maxText, prods)
		}
		tw.Flush()
	default:
		return fmt.Errorf("unknown promo subcommand %q (create or list)", sub)
	}
	return nil
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// orderCmd records refunds: the money goes back through the payment
// provider (Stripe dashboard, or nothing in test mode); this marks the order
// refunded. Effects are not reverted automatically: the site team decides.
func orderCmd(args []string, stdout io.Writer) error {
	sub, args := subcommand(args)
	fs := flag.NewFlagSet("order", flag.ContinueOnError)
	number := fs.String("number", "", "order number")
	note := fs.String("note", "refunded by the site team", "reason kept on the order")
	path := fs.String("db", "./launchdir.db", "SQLite database file")
	if err := server.ParseFlags(fs, args); err != nil {
		return err
	}
	if sub != "refund" {
		return errors.New("order needs a subcommand: refund\n" + orderUsage)
	}
	a, err := openApp(*path)
	if err != nil {
		return err
	}
	defer a.DB.Close()
	ok, err := a.Commerce.RefundOrder(context.Background(), *number, *note)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("no paid order %q", *number)
	}
	fmt.Fprintf(stdout, "order %s refunded\n", *number)
	return nil
}
