/tmp/kwarn-kbuild-case/renamed.o
