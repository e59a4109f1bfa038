/tmp/kwarn-kbuild-case/single.o
