// Probe: 4 KiB O_DIRECT random reads at queue depth 1 (file big1, 1 GiB) while a thread reads
// file big2 (4 GiB) sequentially in chunks of argv[1] bytes (0: no such thread); RANDOM_ADV=1
// advises that thread's descriptor random (no read-ahead), DUTY=1 makes it rest 150 ms after
// each 50 ms of reading. argv[2]=1 puts it in the idle I/O class. Build: gcc -O2 -pthread.
// Caches dropped before each run (echo 3 > /proc/sys/vm/drop_caches).
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <unistd.h>
#include <pthread.h>
#include <time.h>
#include <string.h>
#include <sys/syscall.h>
static long chunk; static int idle; static volatile int stop;
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static long bread;
void* bg(void*a){ if(idle){ syscall(SYS_ioprio_set,1,0,(3<<13)|0);} int fd=open("big2",O_RDONLY); if(getenv("RANDOM_ADV")) posix_fadvise(fd,0,0,POSIX_FADV_RANDOM); char*buf=malloc(chunk); long off=0; double ws=now(); while(!stop){ if(getenv("DUTY") && now()-ws>0.05){ usleep(150000); ws=now(); } long n=pread(fd,buf,chunk,off); if(n<=0){off=0;continue;} off+=n; bread+=n;} return 0;}
int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(int c,char**v){ chunk=atol(v[1]); idle=atoi(v[2]); int fd=open("big1",O_RDONLY|O_DIRECT); void*buf; posix_memalign(&buf,4096,4096);
 pthread_t t; if(chunk>0) pthread_create(&t,0,bg,0); usleep(200000);
 int N=20000; double*lat=malloc(N*sizeof(double)); double t0=now(); srand(1);
 for(int i=0;i<N;i++){ long off=((long)rand()%(1<<18))*4096; double s=now(); pread(fd,buf,4096,off); lat[i]=now()-s; }
 double el=now()-t0; stop=1; if(chunk>0) pthread_join(t,0);
 qsort(lat,N,sizeof(double),cmp);
 printf("chunk %ld idle %d: gets %.0f/s p50 %.0f p99 %.0f p99.9 %.0f max %.0f us; bg %.0f MB/s\n",chunk,idle,N/el,lat[N/2]*1e6,lat[N*99/100]*1e6,lat[N*999/1000]*1e6,lat[N-1]*1e6,bread/el/1e6);}
