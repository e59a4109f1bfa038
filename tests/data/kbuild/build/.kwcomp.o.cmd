cmd_/tmp/kwarn-kbuild-case/kwcomp.o := ld -m elf_x86_64 -z noexecstack --no-warn-rwx-segments   -r -o /tmp/kwarn-kbuild-case/kwcomp.o @/tmp/kwarn-kbuild-case/kwcomp.mod 
