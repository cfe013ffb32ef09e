// Probe (w2: as w.c, but the writer sleeps argv[2] µs after each 256 KiB instead of the duty):
// 4 KiB O_DIRECT random reads at queue depth 1 (file big1) while a thread appends to
// a new file in 256 KiB writes (buffered), working 50 ms then resting 150 ms (GC's resting
// duty). MODE=0: no writer; 1: fdatasync every 128 MiB written (then a new file);
// 2: as 1, and sync_file_range(SYNC_FILE_RANGE_WRITE) of each MiB as it is written;
// 3: as 2, and also waiting for the MiB before it (WAIT_BEFORE|WRITE|WAIT_AFTER).
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <unistd.h>
#include <pthread.h>
#include <time.h>
#include <string.h>
static int mode; static int RATE_US; static volatile int stop; static long wrote;
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
void* bg(void*a){ long chunk=256<<10; char*buf=malloc(chunk); memset(buf,7,chunk); int fd=-1; long off=0; int n=0; double ws=now();
 while(!stop){ usleep(RATE_US);
  if(fd<0){ char name[64]; sprintf(name,"wout%d",n++%2); fd=open(name,O_WRONLY|O_CREAT|O_TRUNC,0644); off=0; }
  pwrite(fd,buf,chunk,off); off+=chunk; wrote+=chunk;
  if(mode>=2 && off%(1<<20)==0){ if(mode==3 && off>=(2<<20)) sync_file_range(fd,off-(2<<20),1<<20,SYNC_FILE_RANGE_WAIT_BEFORE|SYNC_FILE_RANGE_WRITE|SYNC_FILE_RANGE_WAIT_AFTER); sync_file_range(fd,off-(1<<20),1<<20,SYNC_FILE_RANGE_WRITE); }
  if(off>=(128l<<20)){ fdatasync(fd); close(fd); fd=-1; }
 } if(fd>=0) close(fd); return 0;}
int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(int c,char**v){ mode=atoi(v[1]); RATE_US=atoi(v[2]); int fd=open("big1",O_RDONLY|O_DIRECT); void*buf; posix_memalign(&buf,4096,4096);
 pthread_t t; if(mode>0) pthread_create(&t,0,bg,0); usleep(200000);
 int N=40000; double*lat=malloc(N*sizeof(double)); double t0=now(); srand(1);
 for(int i=0;i<N;i++){ long off=((long)rand()%(1<<18))*4096; double s=now(); pread(fd,buf,4096,off); lat[i]=now()-s; }
 double el=now()-t0; stop=1; if(mode>0) pthread_join(t,0);
 qsort(lat,N,sizeof(double),cmp);
 printf("mode %d: gets %.0f/s p50 %.0f p99 %.0f p99.9 %.0f max %.0f us; bg wrote %.0f MB/s\n",mode,N/el,lat[N/2]*1e6,lat[N*99/100]*1e6,lat[N*999/1000]*1e6,lat[N-1]*1e6,wrote/el/1e6);}
