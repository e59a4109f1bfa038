/tmp/kwarn-kbuild-case/part1.o
/tmp/kwarn-kbuild-case/part2.o
