// SPDX-License-Identifier: MIT
/*
 * Unit tests of the missing-break classifier on small C cases, one per
 * signal and counter-signal, of its storage (schema 0002), and of the
 * census scanner underneath on bad input.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "census.h"
#include "classify.h"
#include "store.h"
#include "db.h"
#include "util.h"
#include "tap.h"
#include "banned.h"

/*
 * Each case: a switch whose case on the line marked "W" falls into the
 * label on the line marked "H".  Lines are found from the marks.
 */
struct ccase {
	const char *what;
	const char *src;
	enum classify_verdict want;
};

static const struct ccase cases[] = {
	{ "next case overwrites the stored values (seed 010)",
	  "static int f(int chip)\n{\n"
	  "\tswitch (chip) {\n"
	  "\tcase CHIP_RAVEN:\n"
	  "\t\tpcache_info = raven_cache_info;\n"
	  "\t\tnum = ARRAY_SIZE(raven_cache_info); /*W*/\n"
	  "\tcase CHIP_NAVI10: /*H*/\n"
	  "\t\tpcache_info = navi10_cache_info;\n"
	  "\t\tnum = ARRAY_SIZE(navi10_cache_info);\n"
	  "\t\tbreak;\n\t}\n\treturn num;\n}\n",
	  CLASSIFY_MISSING_BREAK },
	{ "next case repeats the call with another value (seed 009)",
	  "static void f(int state)\n{\n"
	  "\tswitch (state) {\n"
	  "\tcase AMDGPU_IRQ_STATE_DISABLE:\n"
	  "\t\tcntl = RREG32(reg);\n"
	  "\t\tcntl = REG_SET_FIELD(cntl, RING0, TS_ENABLE, 0);\n"
	  "\t\tWREG32(reg, cntl); /*W*/\n"
	  "\tcase AMDGPU_IRQ_STATE_ENABLE: /*H*/\n"
	  "\t\tcntl = RREG32(reg);\n"
	  "\t\tcntl = REG_SET_FIELD(cntl, RING0, TS_ENABLE, 1);\n"
	  "\t\tWREG32(reg, cntl);\n"
	  "\t\tbreak;\n"
	  "\tdefault:\n\t\tbreak;\n\t}\n}\n",
	  CLASSIFY_MISSING_BREAK },
	{ "work done, then the next case fails at once",
	  "static int f(int cmd)\n{\n"
	  "\tswitch (cmd) {\n"
	  "\tcase CMD_RESET:\n"
	  "\t\tdev_reset(dev);\n"
	  "\t\tdev->ready = 1; /*W*/\n"
	  "\tdefault: /*H*/\n"
	  "\t\treturn -EINVAL;\n\t}\n\treturn 0;\n}\n",
	  CLASSIFY_MISSING_BREAK },
	{ "only checks, then falls into a default that fails: unsure "
	  "(issue 34: the classic missing break looks the same)",
	  "static int f(int cmd)\n{\n"
	  "\tswitch (cmd) {\n"
	  "\tcase CMD_OPT:\n"
	  "\t\tif (dev->has_opt)\n"
	  "\t\t\treturn 0; /*W*/\n"
	  "\tdefault: /*H*/\n"
	  "\t\treturn -EOPNOTSUPP;\n\t}\n}\n",
	  CLASSIFY_UNSURE },
	{ "unmarshalling state machine: intended",
	  "static int f(struct afs_call *call)\n{\n"
	  "\tswitch (call->unmarshall) {\n"
	  "\tcase 0:\n"
	  "\t\tafs_extract_to_tmp(call);\n"
	  "\t\tcall->unmarshall++; /*W*/\n"
	  "\tcase 1: /*H*/\n"
	  "\t\tret = afs_extract_data(call, true);\n"
	  "\t\tif (ret < 0)\n\t\t\treturn ret;\n"
	  "\t\tbreak;\n\t}\n\treturn 0;\n}\n",
	  CLASSIFY_INTENDED },
	{ "the falling case sets up a variable the next one uses",
	  "static void f(int kind)\n{\n"
	  "\tswitch (kind) {\n"
	  "\tcase WIDE:\n"
	  "\t\tlen = 8; /*W*/\n"
	  "\tcase NARROW: /*H*/\n"
	  "\t\tcopy(buf, src, len);\n"
	  "\t\tbreak;\n\t}\n}\n",
	  CLASSIFY_INTENDED },
	{ "the next case falls on too: a chain",
	  "static void f(int n)\n{\n"
	  "\tswitch (n) {\n"
	  "\tcase 3:\n"
	  "\t\tout[2] = in[2]; /*W*/\n"
	  "\tcase 2: /*H*/\n"
	  "\t\tout[1] = in[1];\n"
	  "\t\tfallthrough;\n"
	  "\tcase 1:\n"
	  "\t\tout[0] = in[0];\n\t}\n}\n",
	  CLASSIFY_INTENDED },
	{ "compound assignments accumulate: intended",
	  "static unsigned f(int mode)\n{\n"
	  "\tswitch (mode) {\n"
	  "\tcase MODE_ALL:\n"
	  "\t\tflags |= FLAG_A; /*W*/\n"
	  "\tcase MODE_SOME: /*H*/\n"
	  "\t\tflags |= FLAG_B;\n"
	  "\t\tbreak;\n\t}\n\treturn flags;\n}\n",
	  CLASSIFY_INTENDED },
	{ "a left side that moves is no dead store",
	  "static void f(int n)\n{\n"
	  "\tswitch (n) {\n"
	  "\tcase 2:\n"
	  "\t\t*q++ = 0xff; /*W*/\n"
	  "\tcase 1: /*H*/\n"
	  "\t\t*q++ = 0xff;\n"
	  "\t\tbreak;\n\t}\n}\n",
	  CLASSIFY_INTENDED },
	{ "a different flag is not a different value: intended",
	  "static void f(int n)\n{\n"
	  "\tswitch (n) {\n"
	  "\tcase BOTH:\n"
	  "\t\tset_field(&reg, TX_PD, 1); /*W*/\n"
	  "\tcase RX: /*H*/\n"
	  "\t\tset_field(&reg, RX_PD, 1);\n"
	  "\t\tbreak;\n\t}\n}\n",
	  CLASSIFY_INTENDED },
	{ "a value read before the next case stores again: intended",
	  "static int f(int n)\n{\n"
	  "\tswitch (n) {\n"
	  "\tcase 1:\n"
	  "\t\tv = read_a(); /*W*/\n"
	  "\tcase 2: /*H*/\n"
	  "\t\tv = v + read_b();\n"
	  "\t\tbreak;\n\t}\n\treturn v;\n}\n",
	  CLASSIFY_INTENDED },
	{ "the next case starts over: read, modify, write again",
	  "static void f(int on)\n{\n"
	  "\tswitch (on) {\n"
	  "\tcase 1:\n"
	  "\t\tval = readl(base + CTRL);\n"
	  "\t\tval |= CTRL_EN;\n"
	  "\t\twritel(val, base + CTRL); /*W*/\n"
	  "\tcase 0: /*H*/\n"
	  "\t\tval = readl(base + CTRL);\n"
	  "\t\tval &= ~CTRL_EN;\n"
	  "\t\twritel(val, base + CTRL);\n"
	  "\t\tbreak;\n\t}\n}\n",
	  CLASSIFY_MISSING_BREAK },
	{ "an unrolled loop repeats every statement: intended",
	  "static unsigned f(const unsigned char *p, int n, unsigned crc)\n"
	  "{\n"
	  "\tswitch (n & 3) {\n"
	  "\tcase 2:\n"
	  "\t\tcrc = tab[(crc ^ *p++) & 0xff] ^ (crc >> 8);\n"
	  "\t\tlen--; /*W*/\n"
	  "\tcase 1: /*H*/\n"
	  "\t\tcrc = tab[(crc ^ *p++) & 0xff] ^ (crc >> 8);\n"
	  "\t\tlen--;\n"
	  "\t}\n\treturn crc;\n}\n",
	  CLASSIFY_INTENDED },
	{ "an #ifdef branch that breaks stands before the fall: intended",
	  "static int f(int type)\n{\n"
	  "\tswitch (type) {\n"
	  "\tcase SATA:\n"
	  "#ifdef CONFIG_ATA\n"
	  "\t\terror = discover_sata(dev);\n"
	  "\t\tbreak;\n"
	  "#else\n"
	  "\t\tpr_notice(\"no ATA\\n\"); /*W*/\n"
	  "#endif\n"
	  "\tdefault: /*H*/\n"
	  "\t\terror = -ENXIO;\n"
	  "\t\tbreak;\n\t}\n\treturn error;\n}\n",
	  CLASSIFY_INTENDED },
	{ "a store seen by an early exit is not dead, and only checking "
	  "is no intent: unsure",
	  "static int f(struct cap *cap)\n{\n"
	  "\tswitch (cap->cap) {\n"
	  "\tcase CAP_2:\n"
	  "\t\tr = -EINVAL;\n"
	  "\t\tif (cap->args[0] & ~VALID)\n"
	  "\t\t\tbreak; /*W*/\n"
	  "\tcase CAP_1: /*H*/\n"
	  "\t\tquirks = cap->args[0];\n"
	  "\t\tr = 0;\n"
	  "\t\tbreak;\n\t}\n\treturn r;\n}\n",
	  CLASSIFY_UNSURE },
	{ "CRLF line ends and comments change nothing (seed 010)",
	  "static int f(int chip)\r\n{\r\n"
	  "\tswitch (chip) {\r\n"
	  "\tcase CHIP_RAVEN: /* the { brace */\r\n"
	  "\t\tinfo = \"raven: }\";\r\n"
	  "\t\tnum = 3; /*W*/\r\n"
	  "\tcase CHIP_NAVI10: /*H*/\r\n"
	  "\t\tinfo = \"navi\";\r\n"
	  "\t\tnum = 4;\r\n"
	  "\t\tbreak;\r\n\t}\r\n\treturn num;\r\n}\r\n",
	  CLASSIFY_MISSING_BREAK },
	/* ---- issue 16: more shapes of real fixes, and "unsure" ---- */
	{ "a nested switch picks the id, the next case sets its own "
	  "(84242b82d81c)",
	  "static void f(struct hal *h, int svid, int smid)\n{\n"
	  "\tswitch (svid) {\n"
	  "\tcase 0x10EC:\n"
	  "\t\tswitch (smid) {\n"
	  "\t\tcase 0x6151:\n"
	  "\t\t\th->oem_id = CID_TOSHIBA;\n"
	  "\t\t\tbreak;\n"
	  "\t\tdefault:\n"
	  "\t\t\th->oem_id = CID_DEFAULT;\n"
	  "\t\t\tbreak;\n"
	  "\t\t} /*W*/\n"
	  "\tcase 0x1025: /*H*/\n"
	  "\t\th->oem_id = CID_ACER;\n"
	  "\t\tbreak;\n\t}\n}\n",
	  CLASSIFY_MISSING_BREAK },
	{ "a store that a nested path breaks after is no dead store",
	  "static void f(struct hal *h, int svid, int bad)\n{\n"
	  "\tswitch (svid) {\n"
	  "\tcase 0x10EC:\n"
	  "\t\tif (bad) {\n"
	  "\t\t\th->oem_id = CID_TOSHIBA;\n"
	  "\t\t\tbreak;\n"
	  "\t\t}\n"
	  "\t\th->oem_id = CID_DEFAULT;\n"
	  "\t\tnotify(h); /*W*/\n"
	  "\tcase 0x1025: /*H*/\n"
	  "\t\th->oem_id = CID_ACER;\n"
	  "\t\tbreak;\n\t}\n}\n",
	  CLASSIFY_UNSURE },
	{ "work done, then a default that only warns (xfrm AF_INET6)",
	  "static void f(struct sk_buff *skb, int family)\n{\n"
	  "\tswitch (family) {\n"
	  "\tcase AF_INET:\n"
	  "\t\tskb->protocol = htons(ETH_P_IP);\n"
	  "\t\tbreak;\n"
	  "\tcase AF_INET6:\n"
	  "\t\tskb->protocol = htons(ETH_P_IPV6); /*W*/\n"
	  "\tdefault: /*H*/\n"
	  "\t\tWARN_ON_ONCE(1);\n"
	  "\t\tbreak;\n\t}\n}\n",
	  CLASSIFY_MISSING_BREAK },
	{ "work that ends in if (...) return, then a default that fails",
	  "static int f(struct dev *d, int type)\n{\n"
	  "\tswitch (type) {\n"
	  "\tcase TYPE_A:\n"
	  "\t\tret = setup_a(d);\n"
	  "\t\tif (ret)\n"
	  "\t\t\treturn ret; /*W*/\n"
	  "\tdefault: /*H*/\n"
	  "\t\tdev_err(d->dev, \"bad type %d\\n\", type);\n"
	  "\t\treturn -EINVAL;\n\t}\n\treturn 0;\n}\n",
	  CLASSIFY_MISSING_BREAK },
	{ "a count, then a default that crashes: not an error report",
	  "static void f(int st)\n{\n"
	  "\tswitch (st) {\n"
	  "\tcase ST_OVERFLOW:\n"
	  "\t\tSTAT(overflow); /*W*/\n"
	  "\tdefault: /*H*/\n"
	  "\t\tBUG();\n\t}\n}\n",
	  CLASSIFY_UNSURE },
	{ "every other case breaks and the next one assigns rc again "
	  "(df997abeebad)",
	  "static int f(struct tgt *tgt, int type)\n{\n"
	  "\tint rc = 0;\n\n"
	  "\tswitch (type) {\n"
	  "\tcase TGT_INDEX:\n"
	  "\tcase TGT_FLAGS:\n"
	  "\t\trc = S_IRUGO; /*W*/\n"
	  "\tcase TGT_NAME: /*H*/\n"
	  "\t\tif (tgt->name_len)\n"
	  "\t\t\trc = S_IRUGO;\n"
	  "\t\tbreak;\n"
	  "\tcase TGT_CHAP_NAME:\n"
	  "\t\tif (tgt->chap_name_len)\n"
	  "\t\t\trc = S_IRUGO;\n"
	  "\t\tbreak;\n\t}\n\treturn rc;\n}\n",
	  CLASSIFY_MISSING_BREAK },
	{ "the same two cases alone: the next case may assign rc: unsure",
	  "static int f(struct tgt *tgt, int type)\n{\n"
	  "\tint rc = 0;\n\n"
	  "\tswitch (type) {\n"
	  "\tcase TGT_INDEX:\n"
	  "\t\trc = S_IRUGO; /*W*/\n"
	  "\tcase TGT_NAME: /*H*/\n"
	  "\t\tif (tgt->name_len)\n"
	  "\t\t\trc = S_IRUGO;\n"
	  "\t\tbreak;\n\t}\n\treturn rc;\n}\n",
	  CLASSIFY_UNSURE },
	{ "every other case breaks, the next calls the other member of "
	  "the family (5fc194ea6d34)",
	  "static void f(struct alg *t)\n{\n"
	  "\tswitch (t->type) {\n"
	  "\tcase TYPE_SKCIPHER:\n"
	  "\t\tcrypto_unregister_skcipher(&t->alg.skcipher);\n"
	  "\t\tbreak;\n"
	  "\tcase TYPE_AEAD:\n"
	  "\t\tcrypto_unregister_aead(&t->alg.aead); /*W*/\n"
	  "\tcase TYPE_AHASH: /*H*/\n"
	  "\t\tcrypto_unregister_ahash(&t->alg.hash);\n"
	  "\t\tbreak;\n\t}\n}\n",
	  CLASSIFY_MISSING_BREAK },
	{ "every other case breaks, one after this case's work with "
	  "another value (5d25ff7a5448)",
	  "static void f(struct scb *scb)\n{\n"
	  "\tswitch (scb->cmd[0]) {\n"
	  "\tcase ERASE:\n"
	  "\t\tscb->result = DID_ERROR << 16;\n"
	  "\t\tbreak;\n"
	  "\tcase START_STOP:\n"
	  "\t\tscb->result = DID_OK << 16; /*W*/\n"
	  "\tcase TEST_UNIT_READY: /*H*/\n"
	  "\tcase INQUIRY:\n"
	  "\t\tsend_inquiry(scb);\n"
	  "\t\tbreak;\n\t}\n}\n",
	  CLASSIFY_MISSING_BREAK },
	{ "every other case breaks, but nothing else ties them: unsure",
	  "static void f(struct dev *d, int cmd)\n{\n"
	  "\tswitch (cmd) {\n"
	  "\tcase CMD_A:\n"
	  "\t\tstart_a(d);\n"
	  "\t\tbreak;\n"
	  "\tcase CMD_B:\n"
	  "\t\tprepare_b(d); /*W*/\n"
	  "\tcase CMD_C: /*H*/\n"
	  "\t\trun_c(d);\n"
	  "\t\tbreak;\n\t}\n}\n",
	  CLASSIFY_UNSURE },
	{ "no evidence either way: unsure, not intended",
	  "static void f(struct dev *d, int cmd)\n{\n"
	  "\tswitch (cmd) {\n"
	  "\tcase CMD_B:\n"
	  "\t\tprepare_b(d); /*W*/\n"
	  "\tcase CMD_C: /*H*/\n"
	  "\t\trun_c(d);\n"
	  "\t\tbreak;\n\t}\n}\n",
	  CLASSIFY_UNSURE },
	{ "the next case reads another field of the object: unsure",
	  "static void f(struct info *info, int kind)\n{\n"
	  "\tswitch (kind) {\n"
	  "\tcase WIDE:\n"
	  "\t\tinfo->width = 8; /*W*/\n"
	  "\tcase NARROW: /*H*/\n"
	  "\t\tshow(info->height);\n"
	  "\t\tbreak;\n\t}\n}\n",
	  CLASSIFY_UNSURE },
	{ "the falling case breaks on one path, falls on the other: no "
	  "intent (issue 34), unsure",
	  "static int f(struct sta *sta, int state)\n{\n"
	  "\tswitch (state) {\n"
	  "\tcase OPN_SNT:\n"
	  "\t\tif (sta->retries < max) {\n"
	  "\t\t\tretry(sta);\n"
	  "\t\t\taction = OPEN;\n"
	  "\t\t\tbreak;\n"
	  "\t\t}\n"
	  "\t\treason = MAX_RETRIES; /*W*/\n"
	  "\tcase CNF_RCVD: /*H*/\n"
	  "\t\tsta->state = HOLDING;\n"
	  "\t\taction = CLOSE;\n"
	  "\t\tbreak;\n"
	  "\tcase ESTAB:\n"
	  "\t\taction = NONE;\n"
	  "\t\tbreak;\n\t}\n\treturn action;\n}\n",
	  CLASSIFY_UNSURE },
	{ "the next case tests the switch's value, but every other case "
	  "breaks and it assigns 'log' again: the evidence disagrees",
	  "static void f(int evt)\n{\n"
	  "\tswitch (evt) {\n"
	  "\tcase EVT_LOST:\n"
	  "\t\tlog = true;\n"
	  "\t\tbreak;\n"
	  "\tcase EVT_STALL:\n"
	  "\t\tlog = true; /*W*/\n"
	  "\tcase EVT_OVER: /*H*/\n"
	  "\t\tif (evt == EVT_OVER)\n"
	  "\t\t\tlog = false;\n"
	  "\t\tbreak;\n\t}\n}\n",
	  CLASSIFY_UNSURE },
	{ "the next case tests the switch's value: it expects this one",
	  "static void f(int evt)\n{\n"
	  "\tswitch (evt) {\n"
	  "\tcase EVT_STALL:\n"
	  "\t\tstalls++; /*W*/\n"
	  "\tcase EVT_OVER: /*H*/\n"
	  "\t\tif (evt == EVT_OVER)\n"
	  "\t\t\tlog = false;\n"
	  "\t\tbreak;\n\t}\n}\n",
	  CLASSIFY_INTENDED },
	{ "a chain that ends in a bare break is no chain (SUNRPC "
	  "-ENOTCONN): unsure",
	  "static void f(int status)\n{\n"
	  "\tswitch (status) {\n"
	  "\tcase -ENOTCONN:\n"
	  "\t\trebind(clnt); /*W*/\n"
	  "\tcase -EADDRINUSE: /*H*/\n"
	  "\t\tdelay(task, 3);\n"
	  "\t\tfallthrough;\n"
	  "\tcase -EAGAIN:\n"
	  "\t\tbreak;\n\t}\n}\n",
	  CLASSIFY_UNSURE },
	{ "a chain, but the next case does the same step with another "
	  "string (musb quirk 99): the evidence disagrees",
	  "static void f(struct musb *m, u8 devctl)\n{\n"
	  "\tswitch (devctl) {\n"
	  "\tcase QUIRK_99:\n"
	  "\t\trecheck(m, devctl, \"suspend after disconnect\"); /*W*/\n"
	  "\tcase QUIRK_91: /*H*/\n"
	  "\t\tif (recheck(m, devctl, \"invalid vbus\"))\n"
	  "\t\t\treturn;\n"
	  "\t\tfallthrough;\n"
	  "\tcase QUIRK_19:\n"
	  "\t\tidle(m);\n"
	  "\t\tbreak;\n\t}\n}\n",
	  CLASSIFY_UNSURE },
	{ "a comment says it falls through (level 5 ignores it)",
	  "static void f(struct dev *d, int cmd)\n{\n"
	  "\tswitch (cmd) {\n"
	  "\tcase CMD_B:\n"
	  "\t\tprepare_b(d); /*W*/\n"
	  "\t\t/* and then run it like C */\n"
	  "\t\t/* fall through */\n"
	  "\tcase CMD_C: /*H*/\n"
	  "\t\trun_c(d);\n"
	  "\t\tbreak;\n\t}\n}\n",
	  CLASSIFY_INTENDED },
	{ "the falling case only reports, then takes the error path",
	  "static int f(struct dev *d, int mode)\n{\n"
	  "\tswitch (mode) {\n"
	  "\tcase MODE_OLD:\n"
	  "\t\tdev_warn(d->dev, \"old mode\\n\"); /*W*/\n"
	  "\tcase MODE_BAD: /*H*/\n"
	  "\t\tret = -EINVAL;\n"
	  "\t\tbreak;\n\t}\n\treturn ret;\n}\n",
	  CLASSIFY_INTENDED },
	{ "a case that does another case's work, then the next one's",
	  "static void f(int dir)\n{\n"
	  "\tswitch (dir) {\n"
	  "\tcase BOTH:\n"
	  "\t\tset_pd(&reg, TX_PD); /*W*/\n"
	  "\tcase RX: /*H*/\n"
	  "\t\tenable_rx(&reg);\n"
	  "\t\tbreak;\n"
	  "\tcase TX:\n"
	  "\t\tset_pd(&reg, TX_PD);\n"
	  "\t\tbreak;\n"
	  "\tcase RESET:\n"
	  "\t\tclear_pd(&reg);\n"
	  "\t\tfallthrough;\n"
	  "\tcase NONE:\n"
	  "\t\tupdate(&reg);\n"
	  "\t\tbreak;\n\t}\n}\n",
	  CLASSIFY_INTENDED },
	/*
	 * Issue 34, the development seed 9104's deleted breaks that were
	 * called intended (bugs by construction), and two of its markers.
	 */
	{ "the next case clears the bit this case set: unsure, not intended "
	  "(r819xU_phy)",
	  "static void f(struct net_device *dev, int bw)\n{\n"
	  "\tu8 op;\n\n"
	  "\tread_nic_byte(dev, BW_OPMODE, &op);\n"
	  "\tswitch (bw) {\n"
	  "\tcase HT_CHANNEL_WIDTH_20:\n"
	  "\t\top |= BW_OPMODE_20MHZ;\n"
	  "\t\twrite_nic_byte(dev, BW_OPMODE, op); /*W*/\n"
	  "\tcase HT_CHANNEL_WIDTH_20_40: /*H*/\n"
	  "\t\top &= ~BW_OPMODE_20MHZ;\n"
	  "\t\twrite_nic_byte(dev, BW_OPMODE, op);\n"
	  "\t\tbreak;\n"
	  "\tdefault:\n\t\tbreak;\n\t}\n}\n",
	  CLASSIFY_UNSURE },
	{ "the chain does this case's call again, word for word: unsure "
	  "(bfa_ioc)",
	  "static void f(struct bfa_iocpf *iocpf, int event)\n{\n"
	  "\tswitch (event) {\n"
	  "\tcase IOCPF_E_FWRSP_DISABLE:\n"
	  "\t\tdel_timer(&ioc->iocpf_timer);\n"
	  "\t\tset_state(iocpf, sm_disabling_sync); /*W*/\n"
	  "\tcase IOCPF_E_FAIL: /*H*/\n"
	  "\t\tdel_timer(&ioc->iocpf_timer);\n"
	  "\t\tfallthrough;\n"
	  "\tcase IOCPF_E_TIMEOUT:\n"
	  "\t\tset_fwstate(ioc, BFI_IOC_FAIL);\n"
	  "\t\tset_state(iocpf, sm_disabling_sync);\n"
	  "\t\tbreak;\n"
	  "\tcase IOCPF_E_FWRSP_ENABLE:\n\t\tbreak;\n\t}\n}\n",
	  CLASSIFY_UNSURE },
	{ "the same call, but on what the next case stored first: a "
	  "cascade, intended (lmedm04, seed 20261203)",
	  "static int f(int tuner)\n{\n"
	  "\tswitch (tuner) {\n"
	  "\tcase TUNER_S7395:\n"
	  "\t\tname = fw_s7395;\n"
	  "\t\tret = request_firmware(&fw, name, dev);\n"
	  "\t\tif (ret == 0)\n\t\t\tbreak; /*W*/\n"
	  "\tcase TUNER_LG: /*H*/\n"
	  "\t\tname = fw_lg;\n"
	  "\t\tret = request_firmware(&fw, name, dev);\n"
	  "\t\tif (ret == 0)\n\t\t\tbreak;\n"
	  "\t\tfallthrough;\n"
	  "\tcase TUNER_S0194:\n"
	  "\t\tname = fw_s0194;\n"
	  "\t\tret = request_firmware(&fw, name, dev);\n"
	  "\t\tbreak;\n\t}\n\treturn ret;\n}\n",
	  CLASSIFY_INTENDED },
	{ "the next case opens with this case's check, another constant: "
	  "unsure, not intended (hpsa)",
	  "static int f(struct dev *dev, struct map *map)\n{\n"
	  "\tswitch (dev->raid_level) {\n"
	  "\tcase HPSA_RAID_0:\n\t\tbreak;\n"
	  "\tcase HPSA_RAID_1:\n"
	  "\t\tif (le16_to_cpu(map->count) != 2) {\n"
	  "\t\t\tturn_off(dev);\n"
	  "\t\t\treturn IO_ACCEL_INELIGIBLE;\n\t\t}\n"
	  "\t\tif (dev->mirror)\n"
	  "\t\t\tidx += le16_to_cpu(map->disks);\n"
	  "\t\tdev->mirror = !dev->mirror; /*W*/\n"
	  "\tcase HPSA_RAID_ADM: /*H*/\n"
	  "\t\tif (le16_to_cpu(map->count) != 3) {\n"
	  "\t\t\tturn_off(dev);\n"
	  "\t\t\treturn IO_ACCEL_INELIGIBLE;\n\t\t}\n"
	  "\t\tmirror = dev->mirror;\n"
	  "\t\thelper(map, mirror, &idx);\n"
	  "\t\tbreak;\n\t}\n\treturn idx;\n}\n",
	  CLASSIFY_UNSURE },
	{ "each case one test that breaks: a cascade, the same test is no "
	  "sign (tg3, a marker)",
	  "static u32 f(int size, int goal)\n{\n"
	  "\tswitch (size) {\n"
	  "\tcase 16:\n"
	  "\t\tif (goal == BOUNDARY_SINGLE) {\n"
	  "\t\t\tval |= BNDRY_16;\n\t\t\tbreak;\n\t\t} /*W*/\n"
	  "\tcase 32: /*H*/\n"
	  "\t\tif (goal == BOUNDARY_SINGLE) {\n"
	  "\t\t\tval |= BNDRY_32;\n\t\t\tbreak;\n\t\t}\n"
	  "\t\tfallthrough;\n"
	  "\tcase 64:\n"
	  "\t\tval |= BNDRY_64;\n"
	  "\t\tbreak;\n\t}\n\treturn val;\n}\n",
	  CLASSIFY_INTENDED },
	{ "the next case writes the fields of the struct this case stored: "
	  "no read of it (vsp1_rwpf)",
	  "static int f(struct sel *sel)\n{\n"
	  "\tswitch (sel->target) {\n"
	  "\tcase V4L2_SEL_TGT_CROP:\n"
	  "\t\tsel->r = *get_crop(rwpf, config); /*W*/\n"
	  "\tcase V4L2_SEL_TGT_CROP_BOUNDS: /*H*/\n"
	  "\t\tformat = get_format(rwpf, config);\n"
	  "\t\tsel->r.left = 0;\n"
	  "\t\tsel->r.top = 0;\n"
	  "\t\tsel->r.width = format->width;\n"
	  "\t\tsel->r.height = format->height;\n"
	  "\t\tbreak;\n"
	  "\tdefault:\n\t\tret = -EINVAL;\n\t\tbreak;\n\t}\n"
	  "\treturn ret;\n}\n",
	  CLASSIFY_UNSURE },
	{ "a next case in braces that ends in break does not fall on: no "
	  "chain (mptbase)",
	  "static void f(int event)\n{\n"
	  "\tswitch (event) {\n"
	  "\tcase MPI_EVENT_ON_BUS_TIMER_EXPIRED:\n"
	  "\t\tds = \"Bus Timer Expired\"; /*W*/\n"
	  "\tcase MPI_EVENT_QUEUE_FULL: /*H*/\n"
	  "\t{\n"
	  "\t\tu16 depth = (u16)(data >> 16);\n\n"
	  "\t\tsnprintf(str, SZ, \"Queue Full: depth=%d\", depth);\n"
	  "\t\tbreak;\n"
	  "\t}\n"
	  "\tcase MPI_EVENT_SAS_SES:\n"
	  "\t\tds = \"SAS SES Event\";\n\t\tbreak;\n\t}\n}\n",
	  CLASSIFY_UNSURE },
	{ "a store to a field named debugfs_priv is no report (rtw89)",
	  "static int f(int sel)\n{\n"
	  "\tswitch (sel) {\n"
	  "\tcase 2:\n"
	  "\t\tdebugfs_priv->en.dmac_dbg = enable; /*W*/\n"
	  "\tcase 3: /*H*/\n"
	  "\t\tdebugfs_priv->en.cmac_dbg = enable;\n"
	  "\t\tbreak;\n"
	  "\tdefault:\n\t\treturn -EINVAL;\n\t}\n\treturn 0;\n}\n",
	  CLASSIFY_UNSURE },
	{ "the case after the next one stores the state again: unsure, not "
	  "intended (mISDNisar)",
	  "static void f(struct isar_ch *ch)\n{\n"
	  "\tswitch (ch->newcmd) {\n"
	  "\tcase 0:\n"
	  "\t\tch->state = STFAX_READY; /*W*/\n"
	  "\tcase PCTRL_CMD_FTM: /*H*/\n"
	  "\t\tp1 = 2;\n"
	  "\t\tfallthrough;\n"
	  "\tcase PCTRL_CMD_FTH:\n"
	  "\t\tsend_mbox(ch->is, PUMPCTRL, CMD_SILON, 1, &p1);\n"
	  "\t\tch->state = STFAX_SILDET;\n"
	  "\t\tbreak;\n\t}\n}\n",
	  CLASSIFY_UNSURE },
	{ "a chain that ends in a default that fails: unsure (ftm-initiator)",
	  "static int f(int width)\n{\n"
	  "\tswitch (width) {\n"
	  "\tcase WIDTH_40:\n"
	  "\t\t*bw = FORMAT_HT;\n\t\tbreak;\n"
	  "\tcase WIDTH_80:\n"
	  "\t\t*bw = FORMAT_VHT;\n"
	  "\t\t*bw |= BW_80MHZ << BW_POS; /*W*/\n"
	  "\tcase WIDTH_160: /*H*/\n"
	  "\t\tver = lookup_cmd_ver(fw, RANGE_REQ_CMD);\n"
	  "\t\tif (ver >= 13) {\n"
	  "\t\t\t*bw = FORMAT_HE;\n\t\t\tbreak;\n\t\t}\n"
	  "\t\tfallthrough;\n"
	  "\tdefault:\n"
	  "\t\tIWL_ERR(mvm, \"Unsupported BW (%d)\\n\", width);\n"
	  "\t\treturn -EINVAL;\n\t}\n\treturn 0;\n}\n",
	  CLASSIFY_UNSURE },
	{ "only reports, then a default that jumps to error: unsure "
	  "(isp1362)",
	  "static int f(int value)\n{\n"
	  "\tswitch (value) {\n"
	  "\tcase C_HUB_OVER_CURRENT:\n"
	  "\tcase C_HUB_LOCAL_POWER:\n"
	  "\t\tDBG(0, \"C_HUB_OVER_CURRENT or C_HUB_LOCAL_POWER\\n\"); /*W*/\n"
	  "\tdefault: /*H*/\n"
	  "\t\tgoto error;\n\t}\n\treturn 0;\nerror:\n\treturn -EPIPE;\n}\n",
	  CLASSIFY_UNSURE },
};

static long line_of(const char *src, const char *mark)
{
	const char *p = strstr(src, mark);
	long line = 1;

	if (!p)
		return 0;
	for (const char *q = src; q < p; q++)
		line += *q == '\n';
	return line;
}

static void test_cases(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct ccase *c = &cases[i];
		struct classify_result r;
		int rc;

		rc = classify_fallthrough(&r, c->src, strlen(c->src),
					  line_of(c->src, "/*W*/"),
					  line_of(c->src, "/*H*/"));
		ok(rc == 0 && r.verdict == c->want, "%s: %s (%s)", c->what,
		   classify_verdict_name(r.verdict), r.reason);
		if (c->want == CLASSIFY_UNSURE)
			ok(rc == 0 && !r.fix && r.reason[0],
			   "%s: no fix, and a reason", c->what);
		else
			ok(rc == 0 && r.fix &&
				   !strcmp(r.fix,
					   c->want == CLASSIFY_MISSING_BREAK ?
						   "break;" :
						   "fallthrough;") &&
				   r.reason[0],
			   "%s: fix '%s' and a reason", c->what,
			   r.fix ? r.fix : "none");
	}
}

static void test_bad_input(void)
{
	static const char unterminated[] =
		"int f(int x) { switch (x) { case 1: y = 1;\n"
		"case 2: y = 2; break; } /* never closed\n case 3:";
	static const char junk[] = "\xff\xfe\x00\x01"
				   "case\x80:\r\r\n\\";
	struct classify_result r;
	struct census_file f;
	char *big;
	size_t n = 4u << 20;

	ok(classify_fallthrough(&r, unterminated, strlen(unterminated), 1, 2) ==
			   0 &&
		   r.verdict == CLASSIFY_MISSING_BREAK,
	   "an unterminated comment after the switch: still classified");
	/* not "likely intended": no evidence is never advice */
	ok(classify_fallthrough(&r, "int x;\n", 7, 1, 1) == -1 &&
		   r.verdict == CLASSIFY_UNSURE && !r.fix && r.reason[0],
	   "no label on the line: -1 and unsure, with no fix");
	ok(classify_fallthrough(&r, junk, sizeof(junk) - 1, 1, 1) <= 0,
	   "binary junk: no crash");
	ok(classify_fallthrough(&r, "", 0, 1, 1) == -1, "empty source: -1");

	census_scan(&f, unterminated, strlen(unterminated));
	ok(f.notes & CENSUS_NOTE_UNTERMINATED_COMMENT,
	   "census notes the unterminated comment");
	ok(f.nr == 2,
	   "census: the label inside the comment is no label "
	   "(%zu labels)",
	   f.nr);
	census_file_release(&f);

	census_scan(&f, junk, sizeof(junk) - 1);
	ok((f.notes & CENSUS_NOTE_NUL_BYTES) &&
		   (f.notes & CENSUS_NOTE_NOT_UTF8),
	   "census notes NUL bytes and bytes that are not UTF-8");
	census_file_release(&f);

	/* a huge file of comment openers and quotes: linear, no crash */
	big = xmalloc(n);
	for (size_t i = 0; i < n; i++)
		big[i] = "/*\"'\\\n case 1: x;"[i % 17];
	census_scan(&f, big, n);
	ok(f.lines > 0, "a 4 MiB file of openers scans (%ld lines)", f.lines);
	census_file_release(&f);
	free(big);
}

static void test_comment_levels(void)
{
	static const struct {
		const char *c;
		unsigned want;
	} t[] = {
		{ "/* fall through */", 0xe },
		{ "/* FALLTHRU */", 0x1e },
		{ "/* Fall through - reason */", 0xe },
		{ "/* fall through to next */", 0x6 },
		{ "/* else, fall through */", 0xe },
		{ "/*@fallthrough@*/", 0x1e },
		{ "/* nothing */", 0x2 },
		{ "/* fall Through */", 0x6 },
		{ "/* fall through", 0 }, /* unterminated */
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		char buf[64];
		size_t n = strlen(t[i].c);

		memcpy(buf, t[i].c, n);
		memcpy(buf + n, "\n", 2);
		ok(census_comment_levels(buf, n) == t[i].want,
		   "levels of %s: %#x", t[i].c, census_comment_levels(buf, n));
	}
}

static void test_store(void)
{
	char dir[] = "/tmp/kwarn-test-classify.XXXXXX";
	struct classify_result r = { CLASSIFY_MISSING_BREAK, "break;",
				     "because" };
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	char *path;

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return;
	}
	path = xstrfmt("%s/k.db", dir);
	ok(db_open(&db, path, DB_READ_WRITE) == 0, "database opens");
	db_exec(db,
		"INSERT INTO identities (id, fingerprint, kind, message) "
		"VALUES (7, 'x', 'warning', 'm')",
		"insert identity");
	ok(store_classification(db, 7, &r) == 0, "verdict stored");
	r.verdict = CLASSIFY_INTENDED;
	r.fix = "fallthrough;";
	ok(store_classification(db, 7, &r) == 0, "verdict replaced");
	db_prepare(&st, db,
		   "SELECT verdict, fix, count(*) FROM "
		   "classifications WHERE identity_id = 7");
	ok(st && sqlite3_step(st) == SQLITE_ROW &&
		   !strcmp(db_col_text(st, 0), "likely intended") &&
		   !strcmp(db_col_text(st, 1), "fallthrough;") &&
		   sqlite3_column_int(st, 2) == 1,
	   "one row, the newer verdict");
	sqlite3_finalize(st);
	st = NULL;
	r.verdict = CLASSIFY_UNSURE;
	r.fix = NULL;
	ok(store_classification(db, 7, &r) == 0, "an unsure verdict is stored");
	db_prepare(&st, db,
		   "SELECT verdict, fix IS NULL FROM classifications "
		   "WHERE identity_id = 7");
	ok(st && sqlite3_step(st) == SQLITE_ROW &&
		   !strcmp(db_col_text(st, 0), "unsure") &&
		   sqlite3_column_int(st, 1) == 1,
	   "unsure, with no fix (schema 0008)");
	sqlite3_finalize(st);
	ok(db_exec(db,
		   "UPDATE classifications SET fix = 'fallthrough;' "
		   "WHERE identity_id = 7",
		   "a fix on an unsure verdict") != 0,
	   "the schema refuses a fix on an unsure verdict");
	r.verdict = CLASSIFY_MISSING_BREAK;
	r.fix = "break;";
	ok(store_classification(db, 99, &r) == -1,
	   "an unknown identity is refused");
	db_close(db);
	util_rm_rf(dir);
	free(path);
}

int main(void)
{
	util_progname = "test-classify";
	test_cases();
	test_bad_input();
	test_comment_levels();
	test_store();
	return tap_done();
}
