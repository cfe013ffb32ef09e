/* Random 1 KiB reads from a file in the page cache: pread against memcpy from a mapping.
   gcc -O2 page-cache-read.c -o pcr && dd if=/dev/urandom of=f bs=1M count=1024 && cat f >/dev/null && ./pcr f 2000000
   On the development machine, 2026-12-02: pread 1079 ns, mapping first touch 362 ns, warm 337 ns. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>
#include <string.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc,char**argv){
  const char*p=argv[1]; long n=atol(argv[2]);
  int fd=open(p,O_RDONLY); off_t sz=lseek(fd,0,SEEK_END);
  char buf[1100]; long pages=sz/1024-2; unsigned long x=88172645463325252UL; volatile long sink=0;
  double t=now();
  for(long i=0;i<n;i++){x^=x<<13;x^=x>>7;x^=x<<17; off_t o=(x%pages)*1024+ (x%7)*16; pread(fd,buf,1040,o); sink+=buf[5];}
  printf("pread  %.0f ns/read\n",(now()-t)/n*1e9);
  char*m=mmap(0,sz,PROT_READ,MAP_SHARED,fd,0);
  t=now();
  for(long i=0;i<n;i++){x^=x<<13;x^=x>>7;x^=x<<17; off_t o=(x%pages)*1024+(x%7)*16; memcpy(buf,m+o,1040); sink+=buf[5];}
  printf("mmap cold-map %.0f ns/read\n",(now()-t)/n*1e9);
  t=now();
  for(long i=0;i<n;i++){x^=x<<13;x^=x>>7;x^=x<<17; off_t o=(x%pages)*1024+(x%7)*16; memcpy(buf,m+o,1040); sink+=buf[5];}
  printf("mmap warm %.0f ns/read\n",(now()-t)/n*1e9);
  return 0;}
