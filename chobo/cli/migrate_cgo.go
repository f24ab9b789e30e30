//go:build cgo

package cli

import (
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
	"github.com/chobo-lang/chobo/runtime/go/chobotb/tbgo"
)

func init() {
	dialTigerBeetle = func(cluster chobotb.U128, addresses []string) (chobotb.MigrateClient, func(), error) {
		c, err := tbgo.Dial(cluster, addresses...)
		if err != nil {
			return nil, nil, err
		}
		return c, c.Close, nil
	}
}
