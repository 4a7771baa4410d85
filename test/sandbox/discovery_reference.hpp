#pragma once
// Discovery of a real kube-apiserver v1.32, one line per resource, summarised from
// k8s-reference/discovery-{api,apis}-aggregated.txt (every built-in group) and the per-group
// APIResourceLists transcribed there (discovery-*-v1.txt, with storage version hashes).
// discovery_kinds_test.cpp builds the same lines from the sandbox's answers.

#include <string_view>

namespace respool::sandbox::testing::reference {

inline constexpr std::string_view kAggregatedDiscoverySummary = R"txt(
/v1 bindings //Binding Namespaced binding create sn= cat= sub= fresh=Current
/v1 componentstatuses //ComponentStatus Cluster componentstatus get,list sn=cs cat= sub= fresh=Current
/v1 configmaps //ConfigMap Namespaced configmap create,delete,deletecollection,get,list,patch,update,watch sn=cm cat= sub= fresh=Current
/v1 endpoints //Endpoints Namespaced endpoints create,delete,deletecollection,get,list,patch,update,watch sn=ep cat= sub= fresh=Current
/v1 events //Event Namespaced event create,delete,deletecollection,get,list,patch,update,watch sn=ev cat= sub= fresh=Current
/v1 limitranges //LimitRange Namespaced limitrange create,delete,deletecollection,get,list,patch,update,watch sn=limits cat= sub= fresh=Current
/v1 namespaces //Namespace Cluster namespace create,delete,get,list,patch,update,watch sn=ns cat= sub=finalize://Namespace:update;status://Namespace:get,patch,update fresh=Current
/v1 nodes //Node Cluster node create,delete,deletecollection,get,list,patch,update,watch sn=no cat= sub=proxy://NodeProxyOptions:create,delete,get,patch,update;status://Node:get,patch,update fresh=Current
/v1 persistentvolumeclaims //PersistentVolumeClaim Namespaced persistentvolumeclaim create,delete,deletecollection,get,list,patch,update,watch sn=pvc cat= sub=status://PersistentVolumeClaim:get,patch,update fresh=Current
/v1 persistentvolumes //PersistentVolume Cluster persistentvolume create,delete,deletecollection,get,list,patch,update,watch sn=pv cat= sub=status://PersistentVolume:get,patch,update fresh=Current
/v1 pods //Pod Namespaced pod create,delete,deletecollection,get,list,patch,update,watch sn=po cat=all sub=attach://PodAttachOptions:create,get;binding://Binding:create;ephemeralcontainers://Pod:get,patch,update;eviction:policy/v1/Eviction:create;exec://PodExecOptions:create,get;log://Pod:get;portforward://PodPortForwardOptions:create,get;proxy://PodProxyOptions:create,delete,get,patch,update;status://Pod:get,patch,update fresh=Current
/v1 podtemplates //PodTemplate Namespaced podtemplate create,delete,deletecollection,get,list,patch,update,watch sn= cat= sub= fresh=Current
/v1 replicationcontrollers //ReplicationController Namespaced replicationcontroller create,delete,deletecollection,get,list,patch,update,watch sn=rc cat=all sub=scale:autoscaling/v1/Scale:get,patch,update;status://ReplicationController:get,patch,update fresh=Current
/v1 resourcequotas //ResourceQuota Namespaced resourcequota create,delete,deletecollection,get,list,patch,update,watch sn=quota cat= sub=status://ResourceQuota:get,patch,update fresh=Current
/v1 secrets //Secret Namespaced secret create,delete,deletecollection,get,list,patch,update,watch sn= cat= sub= fresh=Current
/v1 serviceaccounts //ServiceAccount Namespaced serviceaccount create,delete,deletecollection,get,list,patch,update,watch sn=sa cat= sub=token:authentication.k8s.io/v1/TokenRequest:create fresh=Current
/v1 services //Service Namespaced service create,delete,deletecollection,get,list,patch,update,watch sn=svc cat=all sub=proxy://ServiceProxyOptions:create,delete,get,patch,update;status://Service:get,patch,update fresh=Current
apiregistration.k8s.io/v1 apiservices //APIService Cluster apiservice create,delete,deletecollection,get,list,patch,update,watch sn= cat=api-extensions sub=status://APIService:get,patch,update fresh=Current
apps/v1 controllerrevisions //ControllerRevision Namespaced controllerrevision create,delete,deletecollection,get,list,patch,update,watch sn= cat= sub= fresh=Current
apps/v1 daemonsets //DaemonSet Namespaced daemonset create,delete,deletecollection,get,list,patch,update,watch sn=ds cat=all sub=status://DaemonSet:get,patch,update fresh=Current
apps/v1 deployments //Deployment Namespaced deployment create,delete,deletecollection,get,list,patch,update,watch sn=deploy cat=all sub=scale:autoscaling/v1/Scale:get,patch,update;status://Deployment:get,patch,update fresh=Current
apps/v1 replicasets //ReplicaSet Namespaced replicaset create,delete,deletecollection,get,list,patch,update,watch sn=rs cat=all sub=scale:autoscaling/v1/Scale:get,patch,update;status://ReplicaSet:get,patch,update fresh=Current
apps/v1 statefulsets //StatefulSet Namespaced statefulset create,delete,deletecollection,get,list,patch,update,watch sn=sts cat=all sub=scale:autoscaling/v1/Scale:get,patch,update;status://StatefulSet:get,patch,update fresh=Current
events.k8s.io/v1 events //Event Namespaced event create,delete,deletecollection,get,list,patch,update,watch sn=ev cat= sub= fresh=Current
authentication.k8s.io/v1 selfsubjectreviews //SelfSubjectReview Cluster selfsubjectreview create sn= cat= sub= fresh=Current
authentication.k8s.io/v1 tokenreviews //TokenReview Cluster tokenreview create sn= cat= sub= fresh=Current
authorization.k8s.io/v1 localsubjectaccessreviews //LocalSubjectAccessReview Namespaced localsubjectaccessreview create sn= cat= sub= fresh=Current
authorization.k8s.io/v1 selfsubjectaccessreviews //SelfSubjectAccessReview Cluster selfsubjectaccessreview create sn= cat= sub= fresh=Current
authorization.k8s.io/v1 selfsubjectrulesreviews //SelfSubjectRulesReview Cluster selfsubjectrulesreview create sn= cat= sub= fresh=Current
authorization.k8s.io/v1 subjectaccessreviews //SubjectAccessReview Cluster subjectaccessreview create sn= cat= sub= fresh=Current
autoscaling/v2 horizontalpodautoscalers //HorizontalPodAutoscaler Namespaced horizontalpodautoscaler create,delete,deletecollection,get,list,patch,update,watch sn=hpa cat=all sub=status://HorizontalPodAutoscaler:get,patch,update fresh=Current
autoscaling/v1 horizontalpodautoscalers //HorizontalPodAutoscaler Namespaced horizontalpodautoscaler create,delete,deletecollection,get,list,patch,update,watch sn=hpa cat=all sub=status://HorizontalPodAutoscaler:get,patch,update fresh=Current
batch/v1 cronjobs //CronJob Namespaced cronjob create,delete,deletecollection,get,list,patch,update,watch sn=cj cat=all sub=status://CronJob:get,patch,update fresh=Current
batch/v1 jobs //Job Namespaced job create,delete,deletecollection,get,list,patch,update,watch sn= cat=all sub=status://Job:get,patch,update fresh=Current
certificates.k8s.io/v1 certificatesigningrequests //CertificateSigningRequest Cluster certificatesigningrequest create,delete,deletecollection,get,list,patch,update,watch sn=csr cat= sub=approval://CertificateSigningRequest:get,patch,update;status://CertificateSigningRequest:get,patch,update fresh=Current
networking.k8s.io/v1 ingressclasses //IngressClass Cluster ingressclass create,delete,deletecollection,get,list,patch,update,watch sn= cat= sub= fresh=Current
networking.k8s.io/v1 ingresses //Ingress Namespaced ingress create,delete,deletecollection,get,list,patch,update,watch sn=ing cat= sub=status://Ingress:get,patch,update fresh=Current
networking.k8s.io/v1 networkpolicies //NetworkPolicy Namespaced networkpolicy create,delete,deletecollection,get,list,patch,update,watch sn=netpol cat= sub= fresh=Current
policy/v1 poddisruptionbudgets //PodDisruptionBudget Namespaced poddisruptionbudget create,delete,deletecollection,get,list,patch,update,watch sn=pdb cat= sub=status://PodDisruptionBudget:get,patch,update fresh=Current
rbac.authorization.k8s.io/v1 clusterrolebindings //ClusterRoleBinding Cluster clusterrolebinding create,delete,deletecollection,get,list,patch,update,watch sn= cat= sub= fresh=Current
rbac.authorization.k8s.io/v1 clusterroles //ClusterRole Cluster clusterrole create,delete,deletecollection,get,list,patch,update,watch sn= cat= sub= fresh=Current
rbac.authorization.k8s.io/v1 rolebindings //RoleBinding Namespaced rolebinding create,delete,deletecollection,get,list,patch,update,watch sn= cat= sub= fresh=Current
rbac.authorization.k8s.io/v1 roles //Role Namespaced role create,delete,deletecollection,get,list,patch,update,watch sn= cat= sub= fresh=Current
storage.k8s.io/v1 csidrivers //CSIDriver Cluster csidriver create,delete,deletecollection,get,list,patch,update,watch sn= cat= sub= fresh=Current
storage.k8s.io/v1 csinodes //CSINode Cluster csinode create,delete,deletecollection,get,list,patch,update,watch sn= cat= sub= fresh=Current
storage.k8s.io/v1 csistoragecapacities //CSIStorageCapacity Namespaced csistoragecapacity create,delete,deletecollection,get,list,patch,update,watch sn= cat= sub= fresh=Current
storage.k8s.io/v1 storageclasses //StorageClass Cluster storageclass create,delete,deletecollection,get,list,patch,update,watch sn=sc cat= sub= fresh=Current
storage.k8s.io/v1 volumeattachments //VolumeAttachment Cluster volumeattachment create,delete,deletecollection,get,list,patch,update,watch sn= cat= sub=status://VolumeAttachment:get,patch,update fresh=Current
admissionregistration.k8s.io/v1 mutatingwebhookconfigurations //MutatingWebhookConfiguration Cluster mutatingwebhookconfiguration create,delete,deletecollection,get,list,patch,update,watch sn= cat=api-extensions sub= fresh=Current
admissionregistration.k8s.io/v1 validatingadmissionpolicies //ValidatingAdmissionPolicy Cluster validatingadmissionpolicy create,delete,deletecollection,get,list,patch,update,watch sn= cat=api-extensions sub=status://ValidatingAdmissionPolicy:get,patch,update fresh=Current
admissionregistration.k8s.io/v1 validatingadmissionpolicybindings //ValidatingAdmissionPolicyBinding Cluster validatingadmissionpolicybinding create,delete,deletecollection,get,list,patch,update,watch sn= cat=api-extensions sub= fresh=Current
admissionregistration.k8s.io/v1 validatingwebhookconfigurations //ValidatingWebhookConfiguration Cluster validatingwebhookconfiguration create,delete,deletecollection,get,list,patch,update,watch sn= cat=api-extensions sub= fresh=Current
apiextensions.k8s.io/v1 customresourcedefinitions //CustomResourceDefinition Cluster customresourcedefinition create,delete,deletecollection,get,list,patch,update,watch sn=crd,crds cat=api-extensions sub=status://CustomResourceDefinition:get,patch,update fresh=Current
scheduling.k8s.io/v1 priorityclasses //PriorityClass Cluster priorityclass create,delete,deletecollection,get,list,patch,update,watch sn=pc cat= sub= fresh=Current
coordination.k8s.io/v1 leases //Lease Namespaced lease create,delete,deletecollection,get,list,patch,update,watch sn= cat= sub= fresh=Current
node.k8s.io/v1 runtimeclasses //RuntimeClass Cluster runtimeclass create,delete,deletecollection,get,list,patch,update,watch sn= cat= sub= fresh=Current
discovery.k8s.io/v1 endpointslices //EndpointSlice Namespaced endpointslice create,delete,deletecollection,get,list,patch,update,watch sn= cat= sub= fresh=Current
flowcontrol.apiserver.k8s.io/v1 flowschemas //FlowSchema Cluster flowschema create,delete,deletecollection,get,list,patch,update,watch sn= cat= sub=status://FlowSchema:get,patch,update fresh=Current
flowcontrol.apiserver.k8s.io/v1 prioritylevelconfigurations //PriorityLevelConfiguration Cluster prioritylevelconfiguration create,delete,deletecollection,get,list,patch,update,watch sn= cat= sub=status://PriorityLevelConfiguration:get,patch,update fresh=Current
)txt";

inline constexpr std::string_view kPlainDiscoverySummary = R"txt(
apiextensions.k8s.io/v1 customresourcedefinitions customresourcedefinition False //CustomResourceDefinition create,delete,deletecollection,get,list,patch,update,watch sn=crd,crds cat=api-extensions hash=jfWCUB31mvA=
apiextensions.k8s.io/v1 customresourcedefinitions/status  False //CustomResourceDefinition get,patch,update sn= cat= hash=
apps/v1 controllerrevisions controllerrevision True //ControllerRevision create,delete,deletecollection,get,list,patch,update,watch sn= cat= hash=85nkx63pcBU=
apps/v1 daemonsets daemonset True //DaemonSet create,delete,deletecollection,get,list,patch,update,watch sn=ds cat=all hash=dd7pWHUlMKQ=
apps/v1 daemonsets/status  True //DaemonSet get,patch,update sn= cat= hash=
apps/v1 deployments deployment True //Deployment create,delete,deletecollection,get,list,patch,update,watch sn=deploy cat=all hash=8aSe+NMegvE=
apps/v1 deployments/scale  True autoscaling/v1/Scale get,patch,update sn= cat= hash=
apps/v1 deployments/status  True //Deployment get,patch,update sn= cat= hash=
apps/v1 replicasets replicaset True //ReplicaSet create,delete,deletecollection,get,list,patch,update,watch sn=rs cat=all hash=P1RzHs8/mWQ=
apps/v1 replicasets/scale  True autoscaling/v1/Scale get,patch,update sn= cat= hash=
apps/v1 replicasets/status  True //ReplicaSet get,patch,update sn= cat= hash=
apps/v1 statefulsets statefulset True //StatefulSet create,delete,deletecollection,get,list,patch,update,watch sn=sts cat=all hash=H+vl74LkKdo=
apps/v1 statefulsets/scale  True autoscaling/v1/Scale get,patch,update sn= cat= hash=
apps/v1 statefulsets/status  True //StatefulSet get,patch,update sn= cat= hash=
batch/v1 cronjobs cronjob True //CronJob create,delete,deletecollection,get,list,patch,update,watch sn=cj cat=all hash=sd5LIXh4Fjs=
batch/v1 cronjobs/status  True //CronJob get,patch,update sn= cat= hash=
batch/v1 jobs job True //Job create,delete,deletecollection,get,list,patch,update,watch sn= cat=all hash=mudhfqk/qZY=
batch/v1 jobs/status  True //Job get,patch,update sn= cat= hash=
coordination.k8s.io/v1 leases lease True //Lease create,delete,deletecollection,get,list,patch,update,watch sn= cat= hash=gqkMMb/YqFM=
v1 bindings binding True //Binding create sn= cat= hash=
v1 componentstatuses componentstatus False //ComponentStatus get,list sn=cs cat= hash=
v1 configmaps configmap True //ConfigMap create,delete,deletecollection,get,list,patch,update,watch sn=cm cat= hash=qFsyl6wFWjQ=
v1 endpoints endpoints True //Endpoints create,delete,deletecollection,get,list,patch,update,watch sn=ep cat= hash=fWeeMqaN/OA=
v1 events event True //Event create,delete,deletecollection,get,list,patch,update,watch sn=ev cat= hash=r2yiGXH7wu8=
v1 limitranges limitrange True //LimitRange create,delete,deletecollection,get,list,patch,update,watch sn=limits cat= hash=EBKMFVe6cwo=
v1 namespaces namespace False //Namespace create,delete,get,list,patch,update,watch sn=ns cat= hash=Q3oi5N2YM8M=
v1 namespaces/finalize  False //Namespace update sn= cat= hash=
v1 namespaces/status  False //Namespace get,patch,update sn= cat= hash=
v1 nodes node False //Node create,delete,deletecollection,get,list,patch,update,watch sn=no cat= hash=XwShjMxG9Fs=
v1 nodes/proxy  False //NodeProxyOptions create,delete,get,patch,update sn= cat= hash=
v1 nodes/status  False //Node get,patch,update sn= cat= hash=
v1 persistentvolumeclaims persistentvolumeclaim True //PersistentVolumeClaim create,delete,deletecollection,get,list,patch,update,watch sn=pvc cat= hash=QWTyNDq0dC4=
v1 persistentvolumeclaims/status  True //PersistentVolumeClaim get,patch,update sn= cat= hash=
v1 persistentvolumes persistentvolume False //PersistentVolume create,delete,deletecollection,get,list,patch,update,watch sn=pv cat= hash=HN/zwEC+JgM=
v1 persistentvolumes/status  False //PersistentVolume get,patch,update sn= cat= hash=
v1 pods pod True //Pod create,delete,deletecollection,get,list,patch,update,watch sn=po cat=all hash=xPOwRZ+Yhw8=
v1 pods/attach  True //PodAttachOptions create,get sn= cat= hash=
v1 pods/binding  True //Binding create sn= cat= hash=
v1 pods/ephemeralcontainers  True //Pod get,patch,update sn= cat= hash=
v1 pods/eviction  True policy/v1/Eviction create sn= cat= hash=
v1 pods/exec  True //PodExecOptions create,get sn= cat= hash=
v1 pods/log  True //Pod get sn= cat= hash=
v1 pods/portforward  True //PodPortForwardOptions create,get sn= cat= hash=
v1 pods/proxy  True //PodProxyOptions create,delete,get,patch,update sn= cat= hash=
v1 pods/status  True //Pod get,patch,update sn= cat= hash=
v1 podtemplates podtemplate True //PodTemplate create,delete,deletecollection,get,list,patch,update,watch sn= cat= hash=LIXB2x4IFpk=
v1 replicationcontrollers replicationcontroller True //ReplicationController create,delete,deletecollection,get,list,patch,update,watch sn=rc cat=all hash=Jond2If31h0=
v1 replicationcontrollers/scale  True autoscaling/v1/Scale get,patch,update sn= cat= hash=
v1 replicationcontrollers/status  True //ReplicationController get,patch,update sn= cat= hash=
v1 resourcequotas resourcequota True //ResourceQuota create,delete,deletecollection,get,list,patch,update,watch sn=quota cat= hash=8uhSgffRX6w=
v1 resourcequotas/status  True //ResourceQuota get,patch,update sn= cat= hash=
v1 secrets secret True //Secret create,delete,deletecollection,get,list,patch,update,watch sn= cat= hash=S6u1pOWzb84=
v1 serviceaccounts serviceaccount True //ServiceAccount create,delete,deletecollection,get,list,patch,update,watch sn=sa cat= hash=pbx9ZvyFpBE=
v1 serviceaccounts/token  True authentication.k8s.io/v1/TokenRequest create sn= cat= hash=
v1 services service True //Service create,delete,deletecollection,get,list,patch,update,watch sn=svc cat=all hash=0/CO1lhkEBI=
v1 services/proxy  True //ServiceProxyOptions create,delete,get,patch,update sn= cat= hash=
v1 services/status  True //Service get,patch,update sn= cat= hash=
events.k8s.io/v1 events event True //Event create,delete,deletecollection,get,list,patch,update,watch sn=ev cat= hash=r2yiGXH7wu8=
policy/v1 poddisruptionbudgets poddisruptionbudget True //PodDisruptionBudget create,delete,deletecollection,get,list,patch,update,watch sn=pdb cat= hash=EVWiDmWqyJw=
policy/v1 poddisruptionbudgets/status  True //PodDisruptionBudget get,patch,update sn= cat= hash=
)txt";

}  // namespace respool::sandbox::testing::reference
