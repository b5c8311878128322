/tmp/x.img: \
 /bin/sh \
 /tmp/ofl-fuzz-skip/in.a \
 /etc/hostname

/bin/sh:

/etc/hostname:
